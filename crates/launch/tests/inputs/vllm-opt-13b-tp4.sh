# vllm-project/vllm docs/serving/distributed_serving.md, "to run the API server on 4 GPUs"
vllm serve facebook/opt-13b \
     --tensor-parallel-size 4
