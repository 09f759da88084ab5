"""An HTTP proxy that only tunnels (CONNECT), for the WebSocket tests.

Prints "PORT <port>" on standard error once it listens, then one line "SAW <json>" per request
head it reads (method, target, Proxy-Authorization), so the test can tell what reached it.
"""
import asyncio
import json
import sys


async def relay(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def handle(client_reader, client_writer):
    try:
        head = await client_reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        client_writer.close()
        return
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = (lines[0].split(" ") + ["", "", ""])[:3]
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            fields[name.strip().lower()] = value.strip()
    seen = {"method": method, "target": target, "authorization": fields.get("proxy-authorization")}
    print("SAW " + json.dumps(seen), file=sys.stderr, flush=True)
    if method != "CONNECT":
        client_writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        client_writer.close()
        return
    host, _, port = target.rpartition(":")
    try:
        origin_reader, origin_writer = await asyncio.open_connection(host, int(port))
    except (OSError, ValueError):
        client_writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
        client_writer.close()
        return
    client_writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
    await asyncio.gather(relay(client_reader, origin_writer), relay(origin_reader, client_writer))


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(f"PORT {server.sockets[0].getsockname()[1]}", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
