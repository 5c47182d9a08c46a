# sgl-project/sglang docs/basic_usage/gpt_oss.md, "Launch the server with the demo tool server"
python3 -m sglang.launch_server \
  --model-path openai/gpt-oss-120b \
  --tool-server demo \
  --tp 2
