# vllm-project/vllm docs/serving/data_parallel_deployment.md, "DP ranks 0 and 1 on the head node and ranks 2 and 3 on the second node", node 0
# Node 0  (with ip address 10.99.48.128)
vllm serve $MODEL --data-parallel-size 4 --data-parallel-size-local 2 \
                  --data-parallel-address 10.99.48.128 --data-parallel-rpc-port 13345
