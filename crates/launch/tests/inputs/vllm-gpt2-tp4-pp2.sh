# vllm-project/vllm docs/serving/distributed_serving.md, pipeline parallelism with tensor parallelism
# Eight GPUs total
vllm serve gpt2 \
     --tensor-parallel-size 4 \
     --pipeline-parallel-size 2
