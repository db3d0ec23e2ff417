"""A WebSocket server for Curlew's tests that breaks RFC 6455 on purpose, written on raw sockets.

Prints "PORT <n>" once it listens on 127.0.0.1. Answers any handshake with a correct 101, then
does what the path says:
  /drop              ends the TCP connection without a close frame
  /reserved-opcode   sends a frame with the reserved opcode 3
  /masked            sends a masked text frame (servers never mask)
  /oversized         sends the header of a 1 GiB binary frame
  /invalid-utf8      sends a text frame that is not UTF-8
  /split-utf8        sends "é" split over two fragments (valid), then a message whose second
                     fragment breaks the sequence the first began (invalid)
  /no-read           never reads again (the client's sends fill the socket buffers)
  /flood             sends 64 MiB in 64 KiB binary messages, as fast as the client reads;
                     "/flood-status" (a second connection) answers with the bytes written so far
  /ignore-close      reads and drops everything, never answers a close, never ends the connection
  /report-masks      reads three frames, answers with their masking keys in hex ("-" for an
                     unmasked frame), comma-separated, in one text message
  /status/<n>        answers the handshake with status <n> and a short body instead
Runs until its standard input closes (the test ends) or it is killed.
"""
import asyncio
import base64
import hashlib
import struct
import sys

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
flood_written = 0


def frame(opcode, payload, fin=True, mask=None):
    first = (0x80 if fin else 0) | opcode
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", first, (0x80 if mask else 0) | length)
    elif length < 65536:
        header = struct.pack("!BBH", first, (0x80 if mask else 0) | 126, length)
    else:
        header = struct.pack("!BBQ", first, (0x80 if mask else 0) | 127, length)
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        return header + mask + payload
    return header + payload


async def handle(reader, writer):
    global flood_written
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    path = lines[0].split(" ")[1]
    key = ""
    for line in lines[1:]:
        if line.lower().startswith("sec-websocket-key:"):
            key = line.split(":", 1)[1].strip()
    if path.startswith("/status/"):
        body = b"no WebSocket here"
        writer.write(b"HTTP/1.1 %s Refused\r\nContent-Length: %d\r\nX-Reason: test\r\n"
                     b"Location: ws://elsewhere.invalid/\r\n\r\n%s"
                     % (path.split("/")[2].encode(), len(body), body))
        await writer.drain()
        writer.close()
        return
    accept = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest())
    writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    if path == "/drop":
        pass
    elif path == "/reserved-opcode":
        writer.write(frame(3, b"x"))
    elif path == "/masked":
        writer.write(frame(1, b"masked", mask=b"\x01\x02\x03\x04"))
    elif path == "/oversized":
        writer.write(struct.pack("!BBQ", 0x82, 127, 1 << 30))
    elif path == "/invalid-utf8":
        writer.write(frame(1, b"ok \xff\xfe"))
    elif path == "/split-utf8":
        writer.write(frame(1, b"caf\xc3", fin=False) + frame(0, b"\xa9"))
        writer.write(frame(1, b"caf\xc3", fin=False) + frame(0, b"e"))
    elif path == "/no-read":
        await asyncio.sleep(3600)
    elif path == "/flood":
        chunk = b"\x00" * 65536
        while flood_written < 64 << 20:
            writer.write(frame(2, chunk))
            await writer.drain()
            flood_written += len(chunk)
    elif path == "/flood-status":
        writer.write(frame(1, str(flood_written).encode()))
    elif path == "/report-masks":
        keys = []
        for _ in range(3):
            first, second = await reader.readexactly(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", await reader.readexactly(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", await reader.readexactly(8))[0]
            key = await reader.readexactly(4) if second & 0x80 else None
            await reader.readexactly(length)
            keys.append(key.hex() if key else "-")
        writer.write(frame(1, ",".join(keys).encode()))
    elif path == "/ignore-close":
        while await reader.read(65536):
            pass
        await asyncio.sleep(3600)
    try:
        await writer.drain()
        # Give the client time to read what was sent before the connection ends; a client that
        # failed the connection closes it first.
        await asyncio.wait_for(reader.read(65536), 30) if path != "/drop" else None
    except Exception:
        pass
    writer.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print("PORT %d" % server.sockets[0].getsockname()[1], flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    server.close()


asyncio.run(main())
