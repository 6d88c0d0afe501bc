"""Python `mcp` SDK with its own OAuth support against `sql-explorer --auth-issuer ISSUER`.

Usage: python py_auth.py --issuer=ISSUER http://127.0.0.1:PORT/mcp

run.sh starts the server; ISSUER is the test authorization server (tests/auth/as.mjs). Each flow
is a fresh `ClientSession` over `streamable_http_client`, on an httpx2 client whose `auth` is the
SDK's provider and whose response hook records every exchange (the OAuth flow's own included):

1. client credentials (`ClientCredentialsOAuthProvider`, client mcp-full): the 401, protected-
   resource metadata, the authorization server's metadata, a token for resource=<the server's
   URL>; then the sql-explorer checks of py_client.py.
2. step-up: the same client starting from a stored token with scope "mcp" (as an earlier run
   would have left in its TokenStorage): `query` is not listed; calling it gets 403
   insufficient_scope, on which the SDK asks for "mcp sql:query" and the retried call succeeds.
3. the same with mcp-basic, which may not have sql:query: the 403, then the authorization server
   refuses the wider scope and the SDK raises OAuthTokenError (out of its transport, ending the
   connection).
4. authorization code + PKCE (`OAuthClientProvider`): dynamic registration, the user's login
   and consent scripted against the authorization server's interaction endpoints, then the
   sql-explorer checks.

Prints one line per check (`ok - ...` / `not ok - ...: why`); exits 1 on any failure.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urljoin, urlparse

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthTokenError
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from py_client import BOOKS, Reporter, expect, sql_explorer_checks

REDIRECT_URI = "http://127.0.0.1:9/callback"  # never reached: the scripted browser stops at the redirect


@dataclass
class Exchange:
    method: str
    url: str
    authorization: str | None
    form: dict[str, str] | None
    status: int
    challenge: str | None
    json: Any = None


@dataclass
class Recorder:
    """An httpx2 response hook keeping every exchange (bodies only for non-MCP JSON answers)."""

    mcp_url: str
    log: list[Exchange] = field(default_factory=list)

    async def __call__(self, response: httpx2.Response) -> None:
        request = response.request
        form = None
        if request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        body = None
        if str(request.url) != self.mcp_url and response.headers.get("content-type", "").startswith("application/json"):
            body = json.loads(await response.aread())
        self.log.append(
            Exchange(
                method=request.method,
                url=str(request.url),
                authorization=request.headers.get("authorization"),
                form=form,
                status=response.status_code,
                challenge=response.headers.get("www-authenticate"),
                json=body,
            )
        )

    def token_requests(self) -> list[Exchange]:
        return [e for e in self.log if e.form and "grant_type" in e.form]


class MemoryStorage:
    """The SDK's TokenStorage, in memory (optionally holding what an earlier run stored)."""

    def __init__(self, tokens: OAuthToken | None = None) -> None:
        self.tokens = tokens
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def claims(jwt: str) -> dict[str, Any]:
    """The claims of a JWT access token, unverified (the server verifies; this reads what the AS issued)."""
    parts = jwt.split(".")
    expect(len(parts) == 3, "the access token is not a JWT")
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    return json.loads(base64.urlsafe_b64decode(payload))


def scopes(value: str | None) -> set[str]:
    return set((value or "").split())


class Flows:
    def __init__(self, issuer: str, url: str, report: Reporter) -> None:
        self.issuer = issuer
        self.url = url
        self.origin = f"{urlparse(url).scheme}://{urlparse(url).netloc}"
        self.metadata_url = f"{self.origin}/.well-known/oauth-protected-resource/mcp"
        self.report = report
        self.check = report.check

    def session(self, provider: httpx2.Auth, recorder: Recorder) -> Any:
        http = httpx2.AsyncClient(
            auth=provider, event_hooks={"response": [recorder]}, timeout=httpx2.Timeout(30, read=120)
        )
        return http, streamable_http_client(self.url, http_client=http)

    # --- shared checks --------------------------------------------------------------------
    async def discovery_checks(self, log: list[Exchange]) -> None:
        async def first_401() -> None:
            first = log[0]
            expect((first.method, first.url) == ("POST", self.url), f"{first.method} {first.url}")
            expect(first.authorization is None, "the first request carried a token")
            expect(first.status == 401, first.status)
            expect((first.challenge or "").startswith("Bearer "), first.challenge)
            expect(f'resource_metadata="{self.metadata_url}"' in first.challenge, first.challenge)

        await self.check("the first request (no token) gets 401 with WWW-Authenticate: Bearer resource_metadata=…", first_401)

        async def prm() -> None:
            found = [e for e in log if e.method == "GET" and e.url == self.metadata_url]
            expect(found, f"no GET {self.metadata_url}")
            doc = found[0].json or {}
            expect(found[0].status == 200, found[0].status)
            expect(doc.get("resource") == self.url, doc)
            expect(doc.get("authorization_servers") == [self.issuer], doc)
            expect("sql:query" in (doc.get("scopes_supported") or []), doc)

        await self.check(
            "the SDK reads the protected-resource metadata the challenge names: resource and authorization server", prm
        )

        async def asm() -> None:
            found = [e for e in log if e.method == "GET" and e.url.startswith(f"{self.issuer}/.well-known/") and e.status == 200]
            expect(found, f"no metadata fetched from {self.issuer}/.well-known/…")
            expect((found[0].json or {}).get("issuer") == self.issuer, found[0].json)

        await self.check("the SDK reads the authorization server's metadata from the issuer the metadata names", asm)

    def assert_insufficient_scope(self, log: list[Exchange]) -> None:
        denied = [e for e in log if e.status == 403]
        expect(denied, f"no 403 in {[(e.method, e.url, e.status) for e in log]}")
        for e in denied:
            expect((e.method, e.url) == ("POST", self.url), f"{e.method} {e.url}")
            challenge = e.challenge or ""
            expect(challenge.startswith("Bearer "), f"403 without a Bearer challenge: {challenge!r}")
            expect('error="insufficient_scope"' in challenge, challenge)
            scope = re.search(r'scope="([^"]*)"', challenge)
            expect(scope and "sql:query" in scope.group(1).split(), challenge)
            expect(f'resource_metadata="{self.metadata_url}"' in challenge, challenge)

    async def stored_token(self, client: tuple[str, str], scope: str) -> OAuthToken:
        """A client-credentials token for this server, as an earlier run would have stored it."""
        async with httpx2.AsyncClient(timeout=30) as http:
            response = await http.post(
                f"{self.issuer}/token",
                auth=client,
                data={"grant_type": "client_credentials", "scope": scope, "resource": self.url},
            )
        expect(response.status_code == 200, response.text)
        return OAuthToken.model_validate(response.json())

    # --- 1. client credentials ------------------------------------------------------------
    async def client_credentials(self) -> None:
        recorder = Recorder(self.url)
        provider = ClientCredentialsOAuthProvider(
            server_url=self.url,
            storage=MemoryStorage(),
            client_id="mcp-full",
            client_secret="full-secret",
            issuer=self.issuer,
        )
        http, transport = self.session(provider, recorder)
        async with http, transport as (read, write), ClientSession(read, write) as session:
            connected = False

            async def initialize() -> None:
                nonlocal connected
                init = await session.initialize()
                connected = True
                expect(init.server_info.name == "sql-explorer", init.server_info)

            await self.check("client credentials (mcp-full): initialize authorizes on the 401 and succeeds", initialize)
            if not connected:
                return
            await self.discovery_checks(recorder.log)

            async def token() -> None:
                requests = recorder.token_requests()
                expect(len(requests) == 1, f"{len(requests)} token requests")
                request = requests[0]
                expect(request.url == f"{self.issuer}/token", request.url)
                expect(request.form["grant_type"] == "client_credentials", request.form)
                expect(request.form.get("resource") == self.url, request.form)
                expect("sql:query" in scopes(request.form.get("scope")), request.form)
                expect(request.authorization and request.authorization.startswith("Basic "), "not client_secret_basic")
                expect(request.status == 200, request.json)
                token = claims(request.json["access_token"])
                expect(token["aud"] == self.url and token["iss"] == self.issuer, token)
                expect("sql:query" in scopes(token.get("scope")), token)
                later = [e for e in recorder.log[recorder.log.index(request) + 1 :] if e.url == self.url]
                expect(later and all(e.authorization == f"Bearer {request.json['access_token']}" for e in later), "requests without the token")

            await self.check(
                f"the token request (client_credentials, scope from the metadata) names resource={self.url}; the JWT's aud is that URL",
                token,
            )
            await sql_explorer_checks(session, self.report)

    # --- 2 and 3. step-up from a stored token without sql:query ----------------------------
    async def step_up(self, client_id: str, secret: str, allowed: bool) -> None:
        recorder = Recorder(self.url)
        label = f"client credentials ({client_id}) from a stored token with scope mcp"
        try:
            stored = await self.stored_token((client_id, secret), "mcp")
        except Exception as e:  # noqa: BLE001 - reported as a failed check
            await self.check(f"{label}: the authorization server issues the stored token", lambda: _raise(e))
            return
        provider = ClientCredentialsOAuthProvider(
            server_url=self.url,
            storage=MemoryStorage(stored),
            client_id=client_id,
            client_secret=secret,
            issuer=self.issuer,
        )
        http, transport = self.session(provider, recorder)
        before: int | None = None
        outcome: list[Any] = []
        transport_error: BaseException | None = None

        async def call() -> None:
            expect(before is not None, "the call was not made")
            log = recorder.log[before:]
            self.assert_insufficient_scope(log)
            steps = [e for e in log if e.form and e.form.get("grant_type") == "client_credentials"]
            expect(len(steps) == 1, f"{len(steps)} token requests after the 403")
            expect(scopes(steps[0].form.get("scope")) == {"mcp", "sql:query"}, steps[0].form)
            expect(steps[0].form.get("resource") == self.url, steps[0].form)

        call_name = (
            'calling query gets HTTP 403, Bearer error="insufficient_scope", scope naming sql:query; '
            'the SDK asks for "mcp sql:query" (step-up)'
        )
        try:
            async with http, transport as (read, write), ClientSession(read, write) as session:
                connected = False

                async def initialize() -> None:
                    nonlocal connected
                    await session.initialize()
                    connected = True
                    expect(not any(e.status == 401 for e in recorder.log), "a 401 with a valid token")
                    expect(recorder.token_requests() == [], "a token request")

                await self.check(f"{label}: initialize succeeds with it", initialize)
                if not connected:
                    return

                async def listed() -> None:
                    tools = (await session.list_tools()).tools
                    expect([t.name for t in tools] == ["explain", "list_tables"], [t.name for t in tools])

                await self.check("without sql:query, tools/list leaves query out", listed)
                before = len(recorder.log)
                try:
                    outcome.append(
                        await session.call_tool(
                            "query",
                            {
                                "sql": "SELECT id, name, category FROM products WHERE category = ? AND id <= ? ORDER BY id",
                                "params": ["books", 10],
                            },
                        )
                    )
                except Exception as e:  # noqa: BLE001 - the outcome is checked below
                    outcome.append(e)
                if allowed:
                    await self.check(call_name, call)

                    async def succeeded() -> None:
                        expect(outcome, "no outcome")
                        result = outcome[0]
                        expect(not isinstance(result, Exception), repr(result))
                        expect(not result.is_error, repr(result.content))
                        expect((result.structured_content or {}).get("rows") == BOOKS, repr(result.structured_content))
                        token = claims(provider.context.current_tokens.access_token)
                        expect(scopes(token.get("scope")) == {"mcp", "sql:query"}, token)
                        tools = (await session.list_tools()).tools
                        expect([t.name for t in tools] == ["query", "explain", "list_tables"], [t.name for t in tools])

                    await self.check(
                        "the client is allowed sql:query: the retried call succeeds, and query is listed", succeeded
                    )
        except Exception as e:  # noqa: BLE001 - judged below (an ExceptionGroup from the transport)
            transport_error = e
        if allowed or before is None:
            if transport_error is not None:
                raise transport_error
            return
        await self.check(call_name, call)

        async def refused() -> None:
            steps = [e for e in recorder.log[before:] if e.form and e.form.get("grant_type") == "client_credentials"]
            expect(steps and steps[0].status == 400, "the AS did not refuse")
            expect((steps[0].json or {}).get("error") == "invalid_scope", steps[0].json)
            errors = [o for o in outcome if isinstance(o, Exception)] + leaves(transport_error)
            expect(not [o for o in outcome if not isinstance(o, Exception)], f"the call succeeded: {outcome!r}")
            expect(
                any(isinstance(e, OAuthTokenError) for e in errors),
                f"no OAuthTokenError: {[repr(e) for e in errors]}",
            )

        # The SDK raises the token error out of its transport, which ends the connection: the
        # call does not return.
        await self.check(
            "the client may not have sql:query: the AS refuses the step-up (invalid_scope), the SDK raises OAuthTokenError",
            refused,
        )

    # --- 4. authorization code + PKCE -----------------------------------------------------
    async def authorization_code(self) -> None:
        recorder = Recorder(self.url)
        browser = ScriptedUser(self.issuer, login="alice", grant="sql:query")
        storage = MemoryStorage()
        provider = OAuthClientProvider(
            server_url=self.url,
            client_metadata=OAuthClientMetadata(
                client_name="interop-python-oauth",
                redirect_uris=[REDIRECT_URI],
                grant_types=["authorization_code"],
                response_types=["code"],
                token_endpoint_auth_method="none",
            ),
            storage=storage,
            redirect_handler=browser.open,
            callback_handler=browser.callback,
        )
        http, transport = self.session(provider, recorder)
        async with browser, http, transport as (read, write), ClientSession(read, write) as session:
            connected = False

            async def initialize() -> None:
                nonlocal connected
                init = await session.initialize()
                connected = True
                expect(init.server_info.name == "sql-explorer", init.server_info)

            await self.check(
                "authorization code + PKCE: initialize registers the client, the user signs in and consents, and succeeds",
                initialize,
            )
            if not connected:
                return
            await self.discovery_checks(recorder.log)

            async def registered() -> None:
                regs = [e for e in recorder.log if e.method == "POST" and e.url == f"{self.issuer}/reg"]
                expect(len(regs) == 1 and regs[0].status == 201, [(e.url, e.status) for e in regs])
                expect(storage.client_info and storage.client_info.client_id == regs[0].json["client_id"], storage.client_info)

            await self.check("dynamic client registration at the AS's registration endpoint", registered)

            async def authorized() -> None:
                expect(len(browser.visits) == 1, f"{len(browser.visits)} authorizations")
                asked = browser.visits[0]["query"]
                expect(asked.get("response_type") == "code", asked)
                expect(asked.get("code_challenge_method") == "S256" and asked.get("code_challenge"), asked)
                expect(asked.get("resource") == self.url, asked)
                expect("sql:query" in scopes(asked.get("scope")), asked)
                expect(browser.visits[0]["prompts"] == ["login", "consent"], browser.visits[0]["prompts"])
                requests = [e for e in recorder.token_requests() if e.form["grant_type"] == "authorization_code"]
                expect(len(requests) == 1, f"{len(requests)} code exchanges")
                form = requests[0].form
                expect(form.get("code_verifier") and form.get("resource") == self.url, form)
                expect(requests[0].status == 200, requests[0].json)
                token = claims(requests[0].json["access_token"])
                expect(token["aud"] == self.url and token["sub"] == "alice", token)
                expect("sql:query" in scopes(token.get("scope")), token)

            await self.check(
                f"PKCE (S256) authorization for resource={self.url} and scope sql:query; the code exchange gives alice's JWT for the server",
                authorized,
            )
            await sql_explorer_checks(session, self.report)


def leaves(error: BaseException | None) -> list[BaseException]:
    """The exceptions in `error`, an exception group's flattened."""
    if error is None:
        return []
    if isinstance(error, BaseExceptionGroup):
        return [leaf for sub in error.exceptions for leaf in leaves(sub)]
    return [error]


def _raise(e: Exception) -> Any:
    async def body() -> None:
        raise e

    return body()


class ScriptedUser:
    """The user's browser for the authorization code flow: follows the authorization URL with
    cookies, signs in as `login`, grants the scopes in `grant` (declining the others) through the
    test AS's interaction endpoints, and stops at the redirect to REDIRECT_URI."""

    def __init__(self, issuer: str, login: str, grant: str) -> None:
        self.issuer = issuer
        self.login = login
        self.grant = grant
        self.http = httpx2.AsyncClient(timeout=10)  # keeps the AS's cookies, like a browser
        self.visits: list[dict[str, Any]] = []
        self.result: AuthorizationCodeResult | None = None

    async def __aenter__(self) -> ScriptedUser:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.http.aclose()

    async def open(self, authorization_url: str) -> None:
        query = {k: v[0] for k, v in parse_qs(urlparse(authorization_url).query).items()}
        visit: dict[str, Any] = {"query": query, "prompts": []}
        self.visits.append(visit)
        self.result = None
        response = await self.http.get(authorization_url)
        for _ in range(12):
            location = response.headers.get("location")
            if not (300 <= response.status_code < 400 and location):
                raise AssertionError(f"the authorization server answered {response.status_code} {response.text}")
            target = urljoin(str(response.request.url), location)
            if target.startswith(REDIRECT_URI):
                answer = {k: v[0] for k, v in parse_qs(urlparse(target).query).items()}
                expect("code" in answer, f"no code: {target}")
                self.result = AuthorizationCodeResult(code=answer["code"], state=answer.get("state"), iss=answer.get("iss"))
                return
            expect(target.startswith(f"{self.issuer}/"), f"the browser left the authorization server for {target}")
            if urlparse(target).path.startswith("/interaction/"):
                asked = await self.http.get(target)
                expect(asked.status_code == 200, asked.text)
                prompt = asked.json()["prompt"]
                visit["prompts"].append(prompt)
                form = {"login": self.login} if prompt == "login" else {"grant": self.grant}
                expect(prompt in ("login", "consent"), f"unexpected prompt {prompt}")
                response = await self.http.post(f"{target}/{prompt}", data=form)
                continue
            response = await self.http.get(target)
        raise AssertionError("more than 12 redirects in the authorization flow")

    async def callback(self) -> AuthorizationCodeResult:
        expect(self.result is not None, "the authorization did not reach the redirect URI")
        return self.result


async def main() -> int:
    argv = sys.argv[1:]
    issuer = next((a.removeprefix("--issuer=") for a in argv if a.startswith("--issuer=")), None)
    rest = [a for a in argv if not a.startswith("--issuer=")]
    if not issuer or len(rest) != 1 or not re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp", rest[0]):
        print(__doc__, file=sys.stderr)
        return 2
    report = Reporter("python-mcp oauth sql-explorer http")
    flows = Flows(issuer, rest[0], report)
    stopped = 0
    runs: list[tuple[str, Callable[[], Any]]] = [
        ("client credentials", flows.client_credentials),
        ("step-up (mcp-full)", lambda: flows.step_up("mcp-full", "full-secret", allowed=True)),
        ("step-up (mcp-basic)", lambda: flows.step_up("mcp-basic", "basic-secret", allowed=False)),
        ("authorization code", flows.authorization_code),
    ]
    for name, run in runs:
        try:
            await asyncio.wait_for(run(), timeout=120)
        except BaseException as e:  # noqa: BLE001 - a flow that stops is one failure, and the next runs
            if isinstance(e, KeyboardInterrupt):
                raise
            stopped += 1
            why = " ".join(f"{type(e).__name__}: {e}".split())[:600]
            print(f"not ok - {report.label}: {name} flow stopped: {why}", flush=True)
    return 1 if report.failed or stopped else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
