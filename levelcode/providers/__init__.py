"""Model providers (Anthropic, OpenAI-shaped): one interface, the SDKs imported only when chosen,
their failures translated once into LevelCode's errors. Imports core only."""
