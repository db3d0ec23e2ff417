"""A WebSocket echo server for Curlew's tests, written with Python's `websockets` library (PyPI).

Prints "PORT <n>" on a line once it listens on 127.0.0.1, then echoes every message back
(text as text, binary as binary). The path "/close/<code>" closes at once with that code;
"/protocol" sends the chosen subprotocol as a text message; "/headers" sends the request's
header lines as one text message; "/echo-then-close/<n>" echoes n messages, then closes (1000);
"/auth/<token>" refuses the handshake with 401 (and a Bearer invalid_token challenge) when it
carries "Authorization: Bearer <token>" or none, and otherwise sends that field as its first message. With --cert and --key it serves wss; with --unix PATH it
listens on that Unix-domain socket instead (and prints "PORT 0").
Runs until its standard input closes (the test ends) or it is killed.
"""
import argparse
import asyncio
import ssl
import sys

from websockets.asyncio.server import serve, unix_serve


async def handler(websocket):
    path = websocket.request.path
    if path.startswith("/close/"):
        await websocket.close(code=int(path.split("/")[2]), reason="closing as asked")
        return
    if path == "/protocol":
        await websocket.send(websocket.subprotocol or "")
    if path.startswith("/auth/"):
        await websocket.send(websocket.request.headers.get("Authorization", ""))
    if path == "/headers":
        await websocket.send("\n".join(f"{k}: {v}" for k, v in websocket.request.headers.raw_items()))
    if path.startswith("/echo-then-close/"):
        for _ in range(int(path.split("/")[2])):
            await websocket.send(await websocket.recv())
        await websocket.close(code=1000, reason="echoed as many as asked")
        return
    async for message in websocket:
        await websocket.send(message)


def process_request(connection, request):
    # The handshake of "/auth/<token>" is refused for that (stale) token or no token at all.
    if request.path.startswith("/auth/"):
        stale = "Bearer " + request.path.split("/")[2]
        given = request.headers.get("Authorization")
        if given is None or given == stale:
            response = connection.respond(401, "stale token\n")
            response.headers["WWW-Authenticate"] = 'Bearer error="invalid_token"'
            return response
    return None


def select_subprotocol(connection, offered):
    # The client's first choice that this server speaks; none (rather than a refusal) otherwise.
    for name in offered:
        if name in ("chat.v1", "chat.v2"):
            return name
    return None


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--unix")
    arguments = parser.parse_args()
    if arguments.unix:
        async with unix_serve(handler, arguments.unix, select_subprotocol=select_subprotocol,
                              process_request=process_request):
            print("PORT 0", flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        return
    context = None
    if arguments.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments.cert, arguments.key)
    async with serve(handler, "127.0.0.1", 0, ssl=context, select_subprotocol=select_subprotocol,
                     process_request=process_request, max_size=64 << 20) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        # Ends when the test closes our standard input (or dies).
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


asyncio.run(main())
