"""The project's gRPC kit, shared by the table and tournament services: status errors, handlers,
interceptors, TLS, the serving process, JSON logs, runtime metrics, the GC policy, reflection."""
