# An independent WebSocket server for Osprey's tests: Python's `websockets` (RFC 6455 and 7692),
# started by WebSocketServer.swift with the venv's python. Prints "PORT <n>" on standard error
# once it listens, then serves until killed.
#
# Paths:
#   /echo          echoes every message, text as text and binary as binary
#   /headers       sends the handshake's request headers as a JSON text message, then echoes
#   /close         after the first message, closes with 4000 "bye"
#   /forbidden     refuses the handshake: 403 with a text body
#   /redirect      302 to /echo
#   /silent        accepts, then never reads or answers (not even pings)
import asyncio
import json
import sys

from websockets.asyncio.server import serve
from websockets.datastructures import Headers


async def handler(connection):
    path = connection.request.path.split("?")[0]
    if path == "/headers":
        await connection.send(json.dumps({name.lower(): value for name, value in connection.request.headers.raw_items()}))
    if path == "/close":
        await connection.recv()
        await connection.close(4000, "bye")
        return
    if path == "/silent":
        await asyncio.sleep(3600)
        return
    async for message in connection:
        await connection.send(message)


def process_request(connection, request):
    path = request.path.split("?")[0]
    if path == "/forbidden":
        return connection.respond(403, "no sockets for you\n")
    if path == "/redirect":
        response = connection.respond(302, "")
        response.headers["Location"] = "/echo"
        return response
    return None


def select_subprotocol(connection, subprotocols):
    return "chat" if "chat" in subprotocols else None


async def main():
    async with serve(
        handler, "127.0.0.1", 0, process_request=process_request, select_subprotocol=select_subprotocol,
        max_size=None, ping_interval=None, compression=None,
    ) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", file=sys.stderr, flush=True)
        await server.serve_forever()


asyncio.run(main())
