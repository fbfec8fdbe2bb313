"""The MCP server as an agent meets it: `branchgraph mcp` launched over stdio by the official
SDK's client, its tools listed and called against real stores."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from branchgraph import api

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]


def payload(result) -> object:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if isinstance(content, dict) and set(content) == {"result"} else content
    return json.loads(result.content[0].text)


def test_tools_answer_over_stdio(shop_repo: Path, config):
    api.ingest(shop_repo, config=config)
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "branchgraph", "mcp", str(shop_repo)],
        env={
            **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH")},
            "BRANCHGRAPH_NEO4J_URI": config.neo4j_uri,
            "BRANCHGRAPH_DATABASE_URL": config.database_url,
            "BRANCHGRAPH_EMBEDDER": "hashing",
        },
    )

    async def session() -> dict[str, object]:
        async with Client(server, read_timeout_seconds=120) as client:
            tools = await client.list_tools()
            context = await client.call_tool("context", {"query": "where is refund implemented", "budget_tokens": 2000})
            callers = await client.call_tool(
                "callers", {"qualname": "shop.billing.invoice.Invoice.add_line", "depth": 1}
            )
            symbol = await client.call_tool("symbol", {"name": "format_money"})
            impact = await client.call_tool("impact", {"symbols": ["shop.core.money.format_money"]})
            status = await client.call_tool("status", {})
            bad = await client.call_tool("context", {"query": "refund", "branch": "nope"})
            read = await client.call_tool(
                "cypher",
                {
                    "query": "MATCH (f:Function {repo: $r, branch: 'main'}) RETURN f.name AS name",
                    "params": {"r": shop_repo.name},
                },
            )
            write = await client.call_tool("cypher", {"query": "MATCH (n) DETACH DELETE n"})
            huge = {
                "limit": await client.call_tool(
                    "cypher", {"query": "UNWIND range(1, 10) AS x RETURN x", "limit": 10**9}
                ),
                "k": await client.call_tool("search", {"query": "refund", "k": 10**6}),
                "depth": await client.call_tool("callers", {"qualname": "shop.payments.Payment.refund", "depth": 50}),
                "budget": await client.call_tool("context", {"query": "refund", "budget_tokens": 10**9}),
            }
            return {
                "huge": huge,
                "tools": tools,
                "context": context,
                "callers": callers,
                "symbol": symbol,
                "impact": impact,
                "status": status,
                "bad": bad,
                "read": read,
                "write": write,
            }

    got = anyio.run(session)
    described = {tool.name: tool.description for tool in got["tools"].tools}
    assert set(described) == {
        "context",
        "search",
        "impact",
        "check",
        "diff",
        "callers",
        "callees",
        "symbol",
        "status",
        "cypher",
    }
    assert all(len(text) > 60 for text in described.values()), "every tool is documented for the agent"

    context = payload(got["context"])
    assert context["branch"] == "main" and context["tokens"] <= 2000
    assert "shop.payments.Payment.refund" in json.dumps(context["items"])
    callers = payload(got["callers"])
    assert "shop.payments.Payment.refund" in {row["caller"] for row in callers}
    assert [row["path"] for row in payload(got["symbol"])] == ["src/shop/core/money.py"]
    assert payload(got["status"])[0]["indexed_commit"]
    impacted = payload(got["impact"])["impacted"]
    assert {"qualname": "shop.payments.Payment.refund", "tier": "will_break"}.items() <= next(
        i for i in impacted if i["qualname"] == "shop.payments.Payment.refund"
    ).items()
    assert got["bad"].is_error and "has no branch 'nope'" in got["bad"].content[0].text
    assert "format_money" in [row["name"] for row in payload(got["read"])]
    assert got["write"].is_error and "only read queries" in got["write"].content[0].text
    # Server-side caps: an agent's oversized limit, k, depth or budget is refused with the range.
    for name, result in got["huge"].items():
        assert result.is_error and "must be between 1 and" in result.content[0].text, name
