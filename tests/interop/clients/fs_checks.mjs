// The filesystem checks for the TypeScript clients: a scratch tree the server may serve, a
// file beside it that it must never touch, and the `filesystem` example started over stdio
// on that tree with `--allow-write`. Mirrored in py_client.py (`--scenario=filesystem`).
//
//   <base>/outside.txt          outside the root: every attempt to reach it is refused
//   <base>/root/hello.txt       read as a tool result and as a file:/// resource
//   <base>/root/notes/todo.md   found by search and listed by list_dir
//   <base>/root/written.txt     created by write_file, then read back
//   <base>/root/link.txt        a symbolic link to ../outside.txt
//   <base>/root/escape          a symbolic link to <base> (a directory outside the root)
//   <base>/root/dangling        a symbolic link to ../created.txt, which does not exist
//
// <base> is a fresh directory under os.tmpdir() (run.sh points TMPDIR at a scratch directory
// of its own), removed when the scenario ends.

import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const HELLO_TEXT = 'hello from the filesystem interop test\nsecond line: ünïcödé 🦀\n';
export const TODO_TEXT = '# todo\n\n- write interop tests\n';
export const OUTSIDE_TEXT = 'outside the root: never to be read or written\n';
export const WRITTEN_TEXT = 'written by write_file\n\ttab, "quotes", back\\slash\n';

/** Creates the scratch tree; `remove()` deletes it. Paths are canonical (no symlinks). */
export function scratchTree() {
    // realpath: the server reports canonical paths, and os.tmpdir() may be a symbolic link.
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-interop-fs-')));
    const root = join(base, 'root');
    mkdirSync(join(root, 'notes'), { recursive: true });
    writeFileSync(join(root, 'hello.txt'), HELLO_TEXT);
    writeFileSync(join(root, 'notes', 'todo.md'), TODO_TEXT);
    writeFileSync(join(base, 'outside.txt'), OUTSIDE_TEXT);
    symlinkSync('../outside.txt', join(root, 'link.txt'));
    symlinkSync(base, join(root, 'escape'));
    symlinkSync('../created.txt', join(root, 'dangling'));
    return {
        base,
        root,
        outside: join(base, 'outside.txt'),
        remove: () => rmSync(base, { recursive: true, force: true })
    };
}

/** The server's `file:///{+path}` URI of an absolute path (ASCII-safe names only here). */
const fileUri = path => `file://${path}`;

function onlyText(result) {
    strictEqual(result.isError ?? false, false, `isError with ${JSON.stringify(result.content)}`);
    strictEqual(result.content.length, 1, `one content block expected, got ${JSON.stringify(result.content)}`);
    strictEqual(result.content[0].type, 'text');
    return result.content[0].text;
}

function refused(result) {
    strictEqual(result.isError, true, `not an isError result: ${JSON.stringify(result)}`);
    strictEqual(result.content[0]?.type, 'text', JSON.stringify(result.content));
    ok(result.content[0].text.startsWith('path refused: '), `not a refusal: ${JSON.stringify(result.content[0].text)}`);
}

/**
 * Runs the filesystem contract against a client connected to `filesystem --allow-write
 * <tree.root>`. refusedCode: the error code this client reports for a refused resources/read
 * (the server sends -32602).
 */
export async function filesystemChecks(client, { check }, tree, { refusedCode = -32602 } = {}) {
    const { root, outside } = tree;

    await check('tools/list offers read_file, list_dir, search and write_file (--allow-write)', async () => {
        const { tools } = await client.listTools();
        const byName = Object.fromEntries(tools.map(t => [t.name, t]));
        for (const name of ['read_file', 'list_dir', 'search', 'write_file']) {
            ok(byName[name], `no tool ${name} in ${tools.map(t => t.name).join(', ')}`);
            ok(byName[name].description, `tool ${name} has no description`);
            strictEqual(byName[name].inputSchema.type, 'object');
        }
        deepStrictEqual([...byName.write_file.inputSchema.required].sort(), ['content', 'path']);
        strictEqual(byName.read_file.annotations?.readOnlyHint, true, 'read_file is read-only');
        strictEqual(byName.write_file.annotations?.destructiveHint, true, 'write_file is destructive');
    });

    await check('tools/call read_file hello.txt (relative to the root) returns its text', async () => {
        const result = await client.callTool({ name: 'read_file', arguments: { path: 'hello.txt' } });
        strictEqual(onlyText(result), HELLO_TEXT);
    });

    await check('tools/call read_file with the absolute path inside the root returns its text', async () => {
        const result = await client.callTool({ name: 'read_file', arguments: { path: join(root, 'notes', 'todo.md') } });
        strictEqual(onlyText(result), TODO_TEXT);
    });

    await check('tools/call list_dir of the root lists its entries (symlinks unfollowed) as structuredContent', async () => {
        const result = await client.callTool({ name: 'list_dir', arguments: { path: root } });
        strictEqual(result.isError ?? false, false, JSON.stringify(result.content));
        const listing = result.structuredContent;
        strictEqual(listing?.path, root);
        strictEqual(listing.truncated, false);
        deepStrictEqual(listing.entries, [
            { name: 'dangling', kind: 'symlink' },
            { name: 'escape', kind: 'symlink' },
            { name: 'hello.txt', kind: 'file', size: Buffer.byteLength(HELLO_TEXT) },
            { name: 'link.txt', kind: 'symlink' },
            { name: 'notes', kind: 'directory' }
        ]);
        deepStrictEqual(JSON.parse(result.content[0].text), listing, 'text mirrors the JSON');
    });

    await check('tools/call search finds notes/todo.md by glob and by substring', async () => {
        for (const pattern of ['*.md', 'TODO']) {
            const result = await client.callTool({ name: 'search', arguments: { path: '.', pattern } });
            strictEqual(result.isError ?? false, false, JSON.stringify(result.content));
            deepStrictEqual(result.structuredContent, { matches: [join(root, 'notes', 'todo.md')], truncated: false }, pattern);
        }
    });

    await check('tools/call search neither follows nor shows symbolic links that lead outside', async () => {
        // link.txt (to ../outside.txt) is not a match; escape/ (to <base>) is not walked.
        const expected = { '*.txt': [join(root, 'hello.txt')], outside: [] };
        for (const [pattern, matches] of Object.entries(expected)) {
            const result = await client.callTool({ name: 'search', arguments: { path: '.', pattern } });
            strictEqual(result.isError ?? false, false, JSON.stringify(result.content));
            deepStrictEqual(result.structuredContent, { matches, truncated: false }, pattern);
        }
    });

    await check('tools/call write_file creates written.txt, and read_file reads it back', async () => {
        const result = await client.callTool({ name: 'write_file', arguments: { path: 'written.txt', content: WRITTEN_TEXT } });
        const text = onlyText(result);
        ok(text.includes(join(root, 'written.txt')), text);
        strictEqual(readFileSync(join(root, 'written.txt'), 'utf8'), WRITTEN_TEXT, 'the file on disk');
        const back = await client.callTool({ name: 'read_file', arguments: { path: 'written.txt' } });
        strictEqual(onlyText(back), WRITTEN_TEXT);
    });

    await check('resources/read file:///<root>/hello.txt returns the text as text/plain', async () => {
        const uri = fileUri(join(root, 'hello.txt'));
        const { contents } = await client.readResource({ uri });
        strictEqual(contents.length, 1, JSON.stringify(contents));
        strictEqual(contents[0].uri, uri);
        strictEqual(contents[0].mimeType, 'text/plain');
        strictEqual(contents[0].text, HELLO_TEXT);
    });

    const attempts = [
        ['read_file', { path: '../outside.txt' }],
        ['read_file', { path: outside }],
        ['read_file', { path: `${root}/../outside.txt` }],
        ['read_file', { path: '%2E%2E/outside.txt' }],
        ['list_dir', { path: '..' }],
        ['search', { path: tree.base, pattern: 'outside' }],
        ['write_file', { path: '../outside.txt', content: 'overwritten via ..\n' }],
        ['write_file', { path: outside, content: 'overwritten via an absolute path\n' }],
        ['read_file', { path: 'link.txt' }],
        ['read_file', { path: 'escape/outside.txt' }],
        ['list_dir', { path: 'escape' }],
        ['search', { path: 'escape', pattern: 'outside' }],
        ['write_file', { path: 'link.txt', content: 'overwritten through a symlink\n' }],
        ['write_file', { path: 'escape/outside.txt', content: 'overwritten through a symlinked directory\n' }],
        ['write_file', { path: 'dangling', content: 'created through a dangling symlink\n' }]
    ];
    for (const [name, args] of attempts) {
        const shown = JSON.stringify(args.path.replace(tree.base, '<base>'));
        await check(`tools/call ${name} ${shown} (outside the root) is refused: isError "path refused: …"`, async () => {
            refused(await client.callTool({ name, arguments: args }));
        });
    }

    await check(`resources/read file:///<base>/outside.txt is refused with ${refusedCode}`, async () => {
        let result;
        try {
            result = await client.readResource({ uri: fileUri(outside) });
        } catch (e) {
            strictEqual(e.code, refusedCode, `code ${e.code}: ${e.message}`);
            ok(/path refused/.test(e.message), e.message);
            return;
        }
        throw new Error(`no error; got ${JSON.stringify(result)}`);
    });

    await check('resources/read file:///<root>/link.txt (a symlink to outside) is refused', async () => {
        let result;
        try {
            result = await client.readResource({ uri: fileUri(join(root, 'link.txt')) });
        } catch (e) {
            strictEqual(e.code, refusedCode, `code ${e.code}: ${e.message}`);
            ok(/path refused/.test(e.message), e.message);
            return;
        }
        throw new Error(`no error; got ${JSON.stringify(result)}`);
    });

    await check('the file outside the root is unchanged, and nothing was created outside it', async () => {
        strictEqual(readFileSync(outside, 'utf8'), OUTSIDE_TEXT);
        ok(!existsSync(join(tree.base, 'created.txt')), '<base>/created.txt exists (written through root/dangling)');
    });
}
