"""A user-space TCP proxy for fault injection (there is no netem here): the server talks to Redis or PostgreSQL
through it, and a test cuts, stalls or slows the bytes in between.

    proxy = FaultProxy("127.0.0.1", 6379).start()   # listens on proxy.port (loopback)
    proxy.stall()    # stop forwarding; every socket stays open, bytes wait in kernel buffers
    proxy.resume()   # forward again (what waited is delivered, as on a healed network)
    proxy.slow(0.05) # every chunk (≤ 4 KiB) waits 50 ms before it is forwarded
    proxy.cut()      # reset every open connection now (new ones are accepted as usual)
    proxy.close()

The proxy runs its own asyncio loop on a thread of its own, so it keeps forwarding while a test's
coroutine (`helpers.run`) starts and ends, and its controls may be called from any thread."""

from __future__ import annotations

import asyncio
import socket
import struct
import threading

CHUNK = 4096


class FaultProxy:
    def __init__(self, upstream_host: str, upstream_port: int):
        self.upstream = (upstream_host, upstream_port)
        self.port = 0
        self.accepted = 0  # connections accepted so far
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="faultproxy", daemon=True)
        self._flowing: asyncio.Event | None = None
        self._delay = 0.0
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.AbstractServer | None = None

    # --- controls (any thread) -------------------------------------------------------------

    def start(self) -> "FaultProxy":
        self._thread.start()
        self._call(self._listen())
        return self

    def stall(self) -> None:
        self._call(self._set(flowing=False))

    def resume(self) -> None:
        self._call(self._set(flowing=True, delay=0.0))

    def slow(self, delay: float) -> None:
        self._call(self._set(flowing=True, delay=delay))

    def cut(self) -> int:
        """Resets every open connection (SO_LINGER 0: an RST, like a dropped NAT entry); answers how many sockets."""
        return self._call(self._cut())

    def close(self) -> None:
        if not self._thread.is_alive():
            return
        self._call(self._shutdown())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    @property
    def open_connections(self) -> int:
        return len(self._writers) // 2

    # --- the loop's side -------------------------------------------------------------------

    def _call(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    async def _listen(self) -> None:
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _set(self, flowing: bool, delay: float | None = None) -> None:
        assert self._flowing is not None
        if delay is not None:
            self._delay = delay
        if flowing:
            self._flowing.set()
        else:
            self._flowing.clear()

    async def _cut(self) -> int:
        writers = list(self._writers)
        for writer in writers:
            _reset(writer)
        self._writers.clear()
        return len(writers)

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        await self._cut()
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            _reset(client_writer)
            return
        pair = {client_writer, upstream_writer}
        self._writers |= pair
        try:
            await asyncio.gather(self._pump(client_reader, upstream_writer),
                                 self._pump(upstream_reader, client_writer))
        finally:
            for writer in pair:
                if writer in self._writers:
                    self._writers.discard(writer)
                    writer.close()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert self._flowing is not None
        try:
            while True:
                # While stalled, nothing is read either: the peer's bytes wait in the kernel,
                # its socket stays open and writable until the buffers fill, as on a dead path.
                await self._flowing.wait()
                data = await reader.read(CHUNK)
                if not data:
                    break
                if self._delay:
                    await asyncio.sleep(self._delay)
                await self._flowing.wait()
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            # One direction ended: end the other too, as a FIN through a real path would.
            if writer in self._writers:
                self._writers.discard(writer)
                writer.close()


def _reset(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    writer.transport.abort()
