# vllm-project/vllm docs/serving/expert_parallel_deployment.md, "Expert Parallel Load Balancer (EPLB)"
vllm serve Qwen/Qwen3-30B-A3B \
  --enable-eplb \
  --eplb-config '{"window_size":1000,"step_interval":3000,"num_redundant_experts":2,"log_balancedness":true}'
