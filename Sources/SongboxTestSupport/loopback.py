"""The accept loop of the tests' own servers (shoutcast_v1.py, hostile_http.py): 127.0.0.1:PORT,
one thread a connection, `listening` printed once connections are taken."""
import socket
import threading


def serve_forever(port, serve, backlog=16):
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(backlog)
    print("listening", flush=True)
    while True:
        connection, _ = server.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()
