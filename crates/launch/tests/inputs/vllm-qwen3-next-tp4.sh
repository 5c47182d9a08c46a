# vllm-project/recipes Qwen/Qwen3-Next.md, "Basic Multi-GPU Setup"
vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tensor-parallel-size 4 \
  --served-model-name qwen3-next 

