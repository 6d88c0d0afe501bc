//! `filesystem`: files under one or more directories, as resources (`file:///{+path}`) and
//! tools (`read_file`, `list_dir`, `search`, and `write_file` with `--allow-write`).
//!
//! ```sh
//! cargo run -p mcp-examples --bin filesystem -- ~/notes                        # stdio
//! cargo run -p mcp-examples --bin filesystem -- --allow-write ~/notes ~/drafts
//! cargo run -p mcp-examples --bin filesystem -- --http 127.0.0.1:3002 ~/notes
//! ```
//!
//! Every path a client sends goes through [`path_guard::guard`]: percent-decoded, then
//! refused if it holds a NUL byte, a `..` component, a UNC or drive prefix, or leads —
//! after resolving symbolic links — outside the allowed directories. Refusals are
//! `isError` tool results, and -32602 for `resources/read`.
//!
//! Paths are absolute, or relative to the first allowed directory. A legacy-era client
//! (2025-11-25 and earlier) that declares the `roots` capability is asked for its roots
//! (`roots/list`) on every request, and the allowed directories are then the
//! intersection of the command line's and the client's `file://` roots: a client root
//! inside a server root narrows it, a server root inside a client root stays, the rest
//! is dropped, so a client can narrow what is served but never widen it (and a client
//! with no usable roots gets nothing). Modern-era clients, where roots are a per-request
//! input rather than a session's list, get the command line's directories.

use std::path::Path;

use ferromcp::prelude::*;
use ferromcp::run::{CommonArgs, Runner};
use ferromcp::types::{EmbeddedResource, TextOrBlobResourceContents};
use ferromcp::{Era, HandlerError, IntoReadResult, ServerBuilder};
use serde::Serialize;

#[path = "filesystem/path_guard.rs"]
pub mod path_guard;
#[path = "filesystem/search.rs"]
mod search;

use path_guard::{Access, AllowedRoot, PathError, guard};
use search::find;

/// Files larger than this are refused rather than read into memory.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// At most this many entries per `list_dir`.
const MAX_ENTRIES: usize = 1000;

/// The server: the directories given on the command line.
pub struct Filesystem {
    roots: Vec<AllowedRoot>,
}

/// A server for `roots`; `write_file` is registered only when `allow_write` is set.
///
/// # Errors
///
/// Registration failed (a bug in this example).
pub fn server(
    roots: Vec<AllowedRoot>,
    allow_write: bool,
) -> Result<Server, ferromcp::registry::RegistryError> {
    served(Server::builder(Filesystem { roots }), allow_write)
}

/// The server `builder` makes, without `write_file` unless `allow_write` is set.
fn served(
    builder: ServerBuilder<Filesystem>,
    allow_write: bool,
) -> Result<Server, ferromcp::registry::RegistryError> {
    let server = builder.build()?;
    if !allow_write {
        // The macros register every tool; the registry's run-time API takes this one away,
        // so a read-only server does not even list it.
        server.registry().remove_tool("write_file");
    }
    Ok(server)
}

/// Why a file operation failed; the text reaches the client.
#[derive(Debug)]
pub enum FsError {
    /// The guard refused the path, or nothing is there.
    Path(PathError),
    /// The request cannot be served as asked (too large, a directory, …).
    Invalid(String),
    /// The file system failed.
    Io(String),
}

impl std::fmt::Display for FsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FsError::Path(e) => e.fmt(f),
            FsError::Invalid(m) | FsError::Io(m) => f.write_str(m),
        }
    }
}

impl From<PathError> for FsError {
    fn from(e: PathError) -> Self {
        FsError::Path(e)
    }
}

impl From<FsError> for ResourceError {
    fn from(e: FsError) -> Self {
        match e {
            FsError::Path(PathError::NotFound(_)) => ResourceError::NotFound,
            FsError::Path(PathError::Io(m)) | FsError::Io(m) => ResourceError::Internal(m),
            e @ (FsError::Path(PathError::Refused(_)) | FsError::Invalid(_)) => {
                ResourceError::InvalidParams(e.to_string())
            }
        }
    }
}

fn io_error(path: &Path, e: std::io::Error) -> FsError {
    FsError::Io(format!("{}: {e}", path.display()))
}

/// A file's bytes with a guessed MIME type: text if they are UTF-8 without NUL bytes,
/// otherwise a base64 blob.
pub struct FileContents {
    bytes: Vec<u8>,
    mime_type: &'static str,
}

impl IntoReadResult for FileContents {
    fn into_read_result(
        self,
        uri: &str,
        _: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        match text(self.bytes) {
            Ok(text) => text.into_read_result(uri, Some(self.mime_type)),
            Err(bytes) => bytes.into_read_result(uri, Some(self.mime_type)),
        }
    }
}

fn text(bytes: Vec<u8>) -> Result<String, Vec<u8>> {
    if bytes.contains(&0) {
        return Err(bytes);
    }
    String::from_utf8(bytes).map_err(|e| e.into_bytes())
}

/// One entry of a directory.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Entry {
    /// The entry's name.
    pub name: String,
    /// `file`, `directory`, `symlink` (not followed) or `other`.
    pub kind: &'static str,
    /// The size in bytes, for files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// A directory's entries, sorted by name.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Listing {
    /// The directory's canonical path.
    pub path: String,
    /// Its entries (at most 1000).
    pub entries: Vec<Entry>,
    /// Whether entries were left out.
    pub truncated: bool,
}

/// Files and directories whose names match.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Matches {
    /// Their paths (at most 100).
    pub matches: Vec<String>,
    /// Whether the search stopped before looking everywhere.
    pub truncated: bool,
}

#[ferromcp::server(
    name = "filesystem",
    version = "1.0.0",
    instructions = "Files under the allowed directories. Paths are absolute or relative to the first allowed directory; resources are file:/// URIs of absolute paths."
)]
impl Filesystem {
    /// Reads a file: text as text, anything else as an embedded base64 resource.
    ///
    /// # Arguments
    /// * `path` - the file, absolute or relative to the first allowed directory
    #[tool(read_only, open_world = false)]
    async fn read_file(&self, path: String, ctx: Context) -> Result<ContentBlock, FsError> {
        let roots = self.roots(&ctx).await?;
        blocking(move || {
            let file = guard(&path, &roots, Access::Read)?;
            let uri = file_uri(&file);
            let contents = read(&file)?;
            Ok(match text(contents.bytes) {
                Ok(text) => ContentBlock::text(text),
                Err(bytes) => {
                    let blob = FileContents {
                        bytes,
                        mime_type: contents.mime_type,
                    };
                    embedded(blob, &uri)?.into()
                }
            })
        })
        .await
    }

    /// Lists a directory's entries (symbolic links are shown, not followed).
    ///
    /// # Arguments
    /// * `path` - the directory, absolute or relative to the first allowed directory
    #[tool(read_only, open_world = false)]
    async fn list_dir(&self, path: String, ctx: Context) -> Result<Json<Listing>, FsError> {
        let roots = self.roots(&ctx).await?;
        blocking(move || list(&guard(&path, &roots, Access::Read)?).map(Json)).await
    }

    /// Finds files and directories by name under a directory. A pattern with `*` or `?` is
    /// a glob matched against whole names; any other pattern is a case-insensitive
    /// substring. Symbolic links are not followed.
    ///
    /// # Arguments
    /// * `path` - the directory to search, absolute or relative to the first allowed directory
    /// * `pattern` - a substring of the names, or a glob such as `*.md`
    #[tool(read_only, open_world = false)]
    async fn search(
        &self,
        path: String,
        pattern: String,
        ctx: Context,
    ) -> Result<Json<Matches>, FsError> {
        let roots = self.roots(&ctx).await?;
        blocking(move || {
            let dir = guard(&path, &roots, Access::Read)?;
            Ok(Json(find(&dir, &pattern, &roots)))
        })
        .await
    }

    /// Creates or replaces a text file. Its directory must exist.
    ///
    /// # Arguments
    /// * `path` - the file, absolute or relative to the first allowed directory
    /// * `content` - the file's new content
    #[tool(destructive, idempotent, open_world = false)]
    async fn write_file(
        &self,
        path: String,
        content: String,
        ctx: Context,
    ) -> Result<String, FsError> {
        let roots = self.roots(&ctx).await?;
        blocking(move || {
            let file = guard(&path, &roots, Access::Write)?;
            std::fs::write(&file, &content).map_err(|e| io_error(&file, e))?;
            Ok(format!(
                "wrote {} bytes to {}",
                content.len(),
                file.display()
            ))
        })
        .await
    }

    /// A file under one of the allowed directories, by absolute path: text files as text,
    /// others as base64 blobs, up to 1 MiB.
    #[resource(uri = "file:///{+path}", name = "file")]
    async fn file(
        &self,
        // Confined by `guard` below (to the allowed roots, symbolic links resolved), which
        // refuses more than the SDK's own path check and says why: exempted from that.
        #[arg(unchecked_path)] path: String,
        ctx: Context,
    ) -> Result<FileContents, FsError> {
        let roots = self.roots(&ctx).await?;
        let path = format!("/{path}");
        blocking(move || read(&guard(&path, &roots, Access::Read)?)).await
    }
}

impl Filesystem {
    /// The directories this request may touch: the command line's, narrowed to the client's
    /// roots for a legacy client that declares them (see the module docs).
    async fn roots(&self, ctx: &Context) -> Result<Vec<AllowedRoot>, FsError> {
        if ctx.era() != Era::Legacy || !ctx.client_capabilities().supports_roots() {
            return Ok(self.roots.clone());
        }
        let client = ctx
            .roots()
            .await
            .map_err(|e| FsError::Io(format!("the client's roots are unknown: {e}")))?;
        let server = self.roots.clone();
        blocking(move || {
            let uris: Vec<&str> = client.iter().map(|r| r.uri.as_str()).collect();
            Ok(path_guard::within_client_roots(&server, &uris))
        })
        .await
    }
}

/// Runs file system work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, FsError> + Send + 'static,
) -> Result<T, FsError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| FsError::Io(format!("the file system task failed: {e}")))?
}

/// Reads a file of at most [`MAX_FILE_BYTES`].
fn read(file: &Path) -> Result<FileContents, FsError> {
    let meta = std::fs::metadata(file).map_err(|e| io_error(file, e))?;
    if meta.is_dir() {
        return Err(FsError::Invalid(format!(
            "{} is a directory: use list_dir",
            file.display()
        )));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(FsError::Invalid(format!(
            "{} is {} bytes, over the limit of {MAX_FILE_BYTES} bytes (1 MiB)",
            file.display(),
            meta.len()
        )));
    }
    let bytes = std::fs::read(file).map_err(|e| io_error(file, e))?;
    Ok(FileContents {
        mime_type: mime_type(file, &bytes),
        bytes,
    })
}

fn embedded(blob: FileContents, uri: &str) -> Result<EmbeddedResource, FsError> {
    let contents: Option<TextOrBlobResourceContents> = blob
        .into_read_result(uri, None)
        .ok()
        .and_then(|r| r.contents.into_iter().next());
    contents
        .map(EmbeddedResource::new)
        .ok_or_else(|| FsError::Io(format!("{uri} could not be encoded")))
}

fn list(dir: &Path) -> Result<Listing, FsError> {
    let read = std::fs::read_dir(dir).map_err(|e| io_error(dir, e))?;
    let mut entries = Vec::new();
    for entry in read {
        let entry = entry.map_err(|e| io_error(dir, e))?;
        // `DirEntry::file_type` does not follow symbolic links.
        let (kind, size) = match entry.file_type() {
            Ok(t) if t.is_symlink() => ("symlink", None),
            Ok(t) if t.is_dir() => ("directory", None),
            Ok(t) if t.is_file() => ("file", entry.metadata().ok().map(|m| m.len())),
            _ => ("other", None),
        };
        entries.push(Entry {
            name: entry.file_name().to_string_lossy().into_owned(),
            kind,
            size,
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let truncated = entries.len() > MAX_ENTRIES;
    entries.truncate(MAX_ENTRIES);
    Ok(Listing {
        path: dir.display().to_string(),
        entries,
        truncated,
    })
}

/// The MIME type by extension; unknown extensions are `text/plain` for text and
/// `application/octet-stream` otherwise.
fn mime_type(path: &Path, bytes: &[u8]) -> &'static str {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("txt" | "log") => "text/plain",
        Some("md" | "markdown") => "text/markdown",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("csv") => "text/csv",
        Some("js" | "mjs") => "text/javascript",
        Some("rs") => "text/x-rust",
        Some("py") => "text/x-python",
        Some("json") => "application/json",
        Some("toml") => "application/toml",
        Some("yaml" | "yml") => "application/yaml",
        Some("xml") => "application/xml",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("pdf") => "application/pdf",
        Some("zip") => "application/zip",
        Some("wav") => "audio/wav",
        Some("mp3") => "audio/mpeg",
        _ if !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}

/// `file://` and the absolute path, percent-encoding all but unreserved characters and `/`,
/// so that the `{+path}` template matches it back.
fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for &b in path.to_string_lossy().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// Files under one or more directories, as MCP resources and tools.
#[derive(Debug, clap::Parser)]
#[command(name = "filesystem", version)]
pub struct Args {
    /// The flags every server takes (`--http`, …).
    #[command(flatten)]
    pub common: CommonArgs,
    /// Let clients write files (the write_file tool)
    #[arg(long)]
    pub allow_write: bool,
    /// The allowed directories
    #[arg(required = true, value_name = "ROOT", value_parser = root)]
    pub roots: Vec<AllowedRoot>,
}

/// A directory of the command line, or why it cannot be served.
fn root(path: &str) -> Result<AllowedRoot, String> {
    AllowedRoot::new(Path::new(path)).map_err(|e| format!("{path}: {e}"))
}

fn main() {
    let args: Args = ferromcp::run::parse();
    Runner::new(args.common).serve_with(async move |setup| {
        let dirs: Vec<_> = args.roots.iter().map(|r| r.path().to_owned()).collect();
        tracing::info!(roots = ?dirs, allow_write = args.allow_write, "filesystem serving");
        Ok(served(
            setup.builder(Filesystem { roots: args.roots })?,
            args.allow_write,
        )?)
    })
}
