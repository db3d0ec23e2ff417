#!/usr/bin/env python3
"""An HTTP/2 server without TLS (h2c, prior knowledge) on 127.0.0.1 for Curlew's stream-priority
tests: it answers every request with JSON naming the priority its HEADERS frame carried on the
wire (RFC 7540 §6.2: weight, dependency, exclusive flag), or null when the frame had none, then
ends the connection with GOAWAY (libcurl 7.88 did not complete a second request on a reused h2c
connection to this server), so every request arrives on a connection of its own.

Uses the `h2` library (Debian's python3-h2, installed by scripts/install-deps.sh --tests). Prints
`PORT n` once it listens, and exits when its standard input closes.
"""
import json
import os
import socket
import sys
import threading

import h2.config
import h2.connection
import h2.events


def serve(connection):
    protocol = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
    protocol.initiate_connection()
    connection.sendall(protocol.data_to_send())
    while True:
        data = connection.recv(65535)
        if not data:
            break
        for event in protocol.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                priority = event.priority_updated
                path = dict(event.headers).get(b":path", b"").decode()
                body = json.dumps({
                    "path": path,
                    "stream": event.stream_id,
                    "priority": None if priority is None else {
                        "weight": priority.weight,
                        "dependsOn": priority.depends_on,
                        "exclusive": priority.exclusive,
                    },
                }).encode()
                protocol.send_headers(event.stream_id, [
                    (":status", "200"), ("content-type", "application/json"), ("content-length", str(len(body)))])
                protocol.send_data(event.stream_id, body, end_stream=True)
                protocol.close_connection(last_stream_id=event.stream_id)
                connection.sendall(protocol.data_to_send())
                connection.close()
                return
        connection.sendall(protocol.data_to_send())
    connection.close()


def main():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    main()
