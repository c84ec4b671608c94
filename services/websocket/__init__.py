"""The WebSocket front door: the table service's tables over WebSocket + JSON (docs/websocket.md)."""
