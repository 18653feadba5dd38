"""The tests' HTTP proxy (tests/_proxy.py) ends every connection when it stops.

A connection left open when the proxy's loop stops is found by the garbage
collector later, in whichever test it runs during, and its unraisable
``ResourceWarning`` fails that test. Connections are made right before the
stop, so that some are still being accepted or have a task that has not
run yet.
"""

from __future__ import annotations

import gc
import socket
import threading
import warnings

from _proxy import TestProxy


def test_stopping_closes_connections_in_every_state() -> None:
    # An upstream that takes connections and never answers.
    upstream = socket.socket()
    upstream.bind(("127.0.0.1", 0))
    upstream.listen(64)
    port = upstream.getsockname()[1]
    leaked: list[str] = []
    try:
        for _ in range(30):
            proxy = TestProxy(port).start()
            clients = [socket.create_connection(("127.0.0.1", proxy.port)) for _ in range(6)]
            clients[0].sendall(b"GET http://a.test/ HTTP/1.1\r\n")  # a request half sent
            clients[1].sendall(b"GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n")
            # More connections arrive while the proxy stops (some are accepted
            # as it stops, their tasks made but not yet run).
            stopping = threading.Thread(target=proxy.stop)
            stopping.start()
            while stopping.is_alive() and len(clients) < 200:
                try:
                    clients.append(socket.create_connection(("127.0.0.1", proxy.port), 1))
                except OSError:
                    break
            stopping.join()
            for client in clients:
                client.close()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                gc.collect()
            leaked += [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    finally:
        upstream.close()
    assert leaked == []
