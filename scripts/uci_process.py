"""A UCI engine as a child process, for the measurement scripts in this folder."""

import subprocess


class UciProcess:
    def __init__(self, command):
        self.process = subprocess.Popen([command], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def read_line(self):
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("engine exited")
        return line

    def wait_for(self, prefix):
        """Reads lines until one starts with `prefix`, and returns it."""
        while True:
            line = self.read_line()
            if line.startswith(prefix):
                return line

    def quit(self):
        self.send("quit")
        self.process.wait()
