"""The gRPC table service: cash tables of the engine hosted on one asyncio loop (docs/table_service.md)."""
