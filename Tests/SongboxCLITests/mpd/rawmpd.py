"""An MPD connection on a raw socket, as the scripts here talk to songbox and to MPD: requests
written as lines, each answer read up to its OK or ACK."""
import socket


class Connection:
    def __init__(self, address):
        """`address`: HOST:PORT, or a socket path."""
        if address.startswith("/"):
            self.socket = socket.socket(socket.AF_UNIX)
            self.socket.connect(address)
        else:
            host, port = address.rsplit(":", 1)
            self.socket = socket.create_connection((host, int(port)))
        self.socket.settimeout(20)
        self.stream = self.socket.makefile("rwb")
        greeting = self.stream.readline().decode()
        assert greeting.startswith("OK MPD "), greeting

    def send(self, *lines):
        self.stream.write(b"".join(line.encode() + b"\n" for line in lines))
        self.stream.flush()

    def answer(self):
        """The lines of one answer, up to its OK or ACK."""
        lines = []
        while True:
            line = self.stream.readline().decode()
            assert line, f"connection closed after {lines}"
            lines.append(line.rstrip("\n"))
            if line.startswith("OK") or line.startswith("ACK"):
                return lines

    def run(self, *lines):
        """Sends a command (or a command list) and checks it succeeded: its lines before OK."""
        self.send(*lines)
        answer = self.answer()
        assert answer[-1] == "OK", f"{lines}: {answer}"
        return answer[:-1]
