# vllm-project/vllm docs/serving/data_parallel_deployment.md, "This will run DP=4, TP=2 on a single 8-GPU node"
vllm serve $MODEL --data-parallel-size 4 --tensor-parallel-size 2
