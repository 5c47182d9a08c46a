# vllm-project/recipes Llama/Llama3.1.md, "Launch vLLM Server"
export TP=1
export VLLM_ROCM_USE_AITER=1
export MODEL="meta-llama/Llama-3.1-8B-Instruct"
vllm serve $MODEL \
  --disable-log-requests \
  -tp $TP &
