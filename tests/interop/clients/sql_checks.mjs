// The sql-explorer checks for the TypeScript clients, over Streamable HTTP against
// `sql-explorer --http 127.0.0.1:0` started by run.sh in an empty directory, so that the
// server creates its sample SQLite database there on first run. Mirrored in py_client.py
// (`--scenario=sql-explorer`).

import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';

/** products 1, 5 and 9 are the sample's books with id <= 10. */
export const BOOKS = [
    [1, 'Atlas 1', 'books'],
    [5, 'Cookbook 5', 'books'],
    [9, 'Novel 9', 'books']
];

export async function sqlExplorerChecks(client, { check }) {
    await check('tools/list offers query, explain and list_tables, read-only, query with an outputSchema', async () => {
        const { tools } = await client.listTools();
        deepStrictEqual(tools.map(t => t.name), ['query', 'explain', 'list_tables']);
        for (const tool of tools) {
            ok(tool.description, `tool ${tool.name} has no description`);
            strictEqual(tool.annotations?.readOnlyHint, true, `${tool.name} is read-only`);
        }
        deepStrictEqual(tools[0].inputSchema.required, ['sql']);
        strictEqual(tools[0].outputSchema?.type, 'object');
    });

    await check('tools/call query with bound params returns structuredContent {columns, rows, row_count, truncated}', async () => {
        const result = await client.callTool({
            name: 'query',
            arguments: {
                sql: 'SELECT id, name, category FROM products WHERE category = ? AND id <= ? ORDER BY id',
                params: ['books', 10]
            }
        });
        strictEqual(result.isError ?? false, false, JSON.stringify(result.content));
        const expected = { columns: ['id', 'name', 'category'], rows: BOOKS, row_count: 3, truncated: false };
        deepStrictEqual(result.structuredContent, expected);
        deepStrictEqual(JSON.parse(result.content[0].text), expected, 'text mirrors the JSON');
    });

    await check('resources/read schema://tables/orders describes the table as JSON', async () => {
        const { contents } = await client.readResource({ uri: 'schema://tables/orders' });
        strictEqual(contents.length, 1, JSON.stringify(contents));
        strictEqual(contents[0].mimeType, 'application/json');
        const table = JSON.parse(contents[0].text);
        strictEqual(table.name, 'orders');
        deepStrictEqual(table.primary_key, ['id']);
        deepStrictEqual(table.foreign_keys, [
            { columns: ['customer_id'], references_table: 'customers', references_columns: ['id'] }
        ]);
        deepStrictEqual(table.columns.map(c => c.name), ['id', 'customer_id', 'ordered_on', 'status']);
    });

    await check('tools/call query DELETE FROM orders is refused: isError, and nothing is deleted', async () => {
        const result = await client.callTool({ name: 'query', arguments: { sql: 'DELETE FROM orders' } });
        strictEqual(result.isError, true, `not an isError result: ${JSON.stringify(result)}`);
        strictEqual(result.content[0].text, 'only a single SELECT/WITH query is allowed; got DELETE');
        const count = await client.callTool({ name: 'query', arguments: { sql: 'SELECT count(*) AS n FROM orders' } });
        deepStrictEqual(count.structuredContent?.rows, [[250]]);
    });
}
