"""A WebSocket echo server for Curlew's tests, written with Python's `websockets` library.

Prints "PORT <n>" on a line once it listens on 127.0.0.1, then echoes every message back
(text as text, binary as binary). The path "/close/<code>" closes at once with that code;
"/protocol" echoes the chosen subprotocol as a text message; "/headers" sends back the
request's header lines as one text message. With --cert and --key it serves wss.
Runs until its standard input closes (the test ends) or it is killed.
"""
import argparse
import asyncio
import ssl
import sys

import websockets


async def handler(websocket, path=None):
    path = path if path is not None else websocket.path
    if path.startswith("/close/"):
        await websocket.close(code=int(path.split("/")[2]), reason="closing as asked")
        return
    if path == "/protocol":
        await websocket.send(websocket.subprotocol or "")
    if path == "/headers":
        await websocket.send("\n".join(f"{k}: {v}" for k, v in websocket.request_headers.raw_items()))
    async for message in websocket:
        await websocket.send(message)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    arguments = parser.parse_args()
    context = None
    if arguments.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments.cert, arguments.key)
    server = await websockets.serve(
        handler, "127.0.0.1", 0, ssl=context, subprotocols=["chat.v2", "chat.v1"], max_size=64 << 20)
    port = server.sockets[0].getsockname()[1]
    print(f"PORT {port}", flush=True)
    loop = asyncio.get_running_loop()
    # Ends when the test closes our standard input (or dies).
    await loop.run_in_executor(None, sys.stdin.read)
    server.close()
    await server.wait_closed()


asyncio.run(main())
