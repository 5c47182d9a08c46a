# vllm-project/recipes OpenAI/GPT-OSS.md, "A100"
vllm serve openai/gpt-oss-120b --tensor-parallel-size 2
