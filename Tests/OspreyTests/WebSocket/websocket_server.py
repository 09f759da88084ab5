# An independent WebSocket server for Osprey's tests: Python's `websockets` (RFC 6455 and 7692),
# started by WebSocketServer.swift with the venv's python. Prints "PORT <n>" on standard error
# once it listens, then serves until killed.
#
#   websocket_server.py [--tls CERTIFICATE KEY] [--unix PATH] [--deflate [PARAMETERS]]
#
# With --deflate it accepts permessage-deflate (websockets' defaults: 12-bit windows both ways);
# PARAMETERS, comma-separated, set its side of the agreement: server_no_context_takeover,
# client_no_context_takeover, server_max_window_bits=N, client_max_window_bits=N.
#
# Paths:
#   /echo          echoes every message, text as text and binary as binary
#   /headers       sends the handshake's request headers as a JSON text message, then echoes
#   /close         after the first message, closes with 4000 "bye"
#   /forbidden     refuses the handshake: 403 with a text body
#   /redirect      302 to /echo
#   /redirect-to   302 to the query's `location`
#   /cookie        sets the cookie `session=abc` on its 101, then echoes
#   /silent        accepts, then never reads or answers (not even pings)
#   /sends         ?kind=K&size=N&count=C: sends C messages of N bytes (K: text, utf8, binary,
#                  random), each after the client echoed the last, and closes with 1000 when
#                  every echo was the message sent, else 1011 naming the first that was not
#                  (Autobahn's client cases 12 and 13)
import asyncio
import json
import random
import ssl
import sys
import urllib.parse

from websockets.asyncio.server import serve, unix_serve
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory


def payload(kind, size, index):
    """The index-th message of a /sends run: text or bytes of `size` bytes."""
    generator = random.Random(size * 1000 + index)
    if kind == "text":
        # Repetitive text: compresses well.
        return ("Hello, Osprey! " * (size // 15 + 1))[:size]
    if kind == "utf8":
        # Text of one- to four-byte characters, cut to `size` bytes at a character boundary.
        pieces, length = [], 0
        while length < size:
            piece = generator.choice(["a", "é", "κ", "€", "𝄞", " ", "z"])
            if length + len(piece.encode()) > size:
                break
            pieces.append(piece)
            length += len(piece.encode())
        return "".join(pieces) + "a" * (size - length)
    if kind == "binary":
        return bytes((index + offset) % 7 for offset in range(size))
    return generator.randbytes(size)


async def sends(connection, query):
    kind = query.get("kind", ["text"])[0]
    size = int(query.get("size", ["16"])[0])
    count = int(query.get("count", ["1"])[0])
    for index in range(count):
        message = payload(kind, size, index)
        await connection.send(message)
        echo = await connection.recv()
        if echo != message:
            await connection.close(1011, f"echo {index} differs")
            return
    await connection.close(1000, "")


async def handler(connection):
    path, _, query = connection.request.path.partition("?")
    if path == "/sends":
        await sends(connection, urllib.parse.parse_qs(query))
        return
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
    if path == "/redirect-to":
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(request.path).query)
        response = connection.respond(302, "")
        response.headers["Location"] = query["location"][0]
        return response
    return None


def process_response(connection, request, response):
    if request.path.split("?")[0] == "/cookie" and response.status_code == 101:
        response.headers["Set-Cookie"] = "session=abc; Path=/"
    return response


def select_subprotocol(connection, subprotocols):
    return "chat" if "chat" in subprotocols else None


async def main():
    arguments = sys.argv[1:]
    options = dict(
        process_request=process_request, process_response=process_response,
        select_subprotocol=select_subprotocol, max_size=None, ping_interval=None,
        compression="deflate" if "--deflate" in arguments else None,
    )
    if "--deflate" in arguments and arguments.index("--deflate") + 1 < len(arguments) \
            and not arguments[arguments.index("--deflate") + 1].startswith("--"):
        parameters = {}
        for item in filter(None, arguments[arguments.index("--deflate") + 1].split(",")):
            name, _, value = item.partition("=")
            parameters[name] = int(value) if value else True
        options["compression"] = None
        options["extensions"] = [ServerPerMessageDeflateFactory(**parameters)]
    if "--tls" in arguments:
        at = arguments.index("--tls")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments[at + 1], arguments[at + 2])
        options["ssl"] = context
    if "--unix" in arguments:
        server = await unix_serve(handler, arguments[arguments.index("--unix") + 1], **options)
        print("PORT 0", file=sys.stderr, flush=True)
    else:
        server = await serve(handler, "127.0.0.1", 0, **options)
        print(f"PORT {server.sockets[0].getsockname()[1]}", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
