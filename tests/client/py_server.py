"""A server written with the Python SDK (mcp 2.x, MCPServer), for tests/client/run.sh.

    py_server.py                  serve stdio
    py_server.py --http PORT      serve Streamable HTTP on 127.0.0.1:PORT/mcp
"""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("py-server")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.resource("py://hello")
def hello() -> str:
    """A greeting."""
    return "hello from python"


@server.prompt()
def greet(name: str) -> str:
    """Greets someone."""
    return f"Hello {name}"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
