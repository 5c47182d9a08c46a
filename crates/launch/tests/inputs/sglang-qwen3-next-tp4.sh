# sgl-project/sglang docs/basic_usage/qwen3.md, "To serve Qwen3-Next models on 4xH100/H200 GPUs"
python3 -m sglang.launch_server --model Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4
