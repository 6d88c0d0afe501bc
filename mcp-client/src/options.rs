//! How a client presents itself and behaves: [`ClientOptions`].

use std::sync::Arc;
use std::time::Duration;

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::{ClientCapabilities, Implementation};

use crate::handler::{ClientHandler, ServerRequests};

/// The client's identity, capabilities, protocol choice and limits.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use ferromcp_client::ClientOptions;
/// use ferromcp_client::ProtocolVersion;
///
/// let options = ClientOptions::new()
///     .request_timeout(Duration::from_secs(10))
///     .protocol_version(ProtocolVersion::V2025_11_25);
/// assert_eq!(options.pinned_version(), Some(ProtocolVersion::V2025_11_25));
/// ```
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub(crate) client_info: Implementation,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) request_timeout: Duration,
    pub(crate) event_capacity: usize,
    pub(crate) max_message_size: usize,
    pub(crate) handler: ServerRequests,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            client_info: Implementation::new("ferromcp-client", env!("CARGO_PKG_VERSION")),
            capabilities: ClientCapabilities::default(),
            version: None,
            request_timeout: Duration::from_secs(60),
            event_capacity: 1024,
            max_message_size: 64 * 1024 * 1024,
            handler: ServerRequests::default(),
        }
    }
}

impl ClientOptions {
    /// The defaults: named `ferromcp-client`, no capabilities, the era chosen automatically,
    /// a 60 s request timeout, 1024 buffered events, messages up to 64 MiB.
    pub fn new() -> Self {
        Self::default()
    }

    /// How the client names itself to the server.
    pub fn client_info(mut self, info: Implementation) -> Self {
        self.client_info = info;
        self
    }

    /// The capabilities the client declares (roots, sampling, elicitation…); declare only
    /// what the [`handler`](Self::handler) answers.
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Speaks only `version`: 2026-07-28 (`server/discover`, no fallback) or a legacy
    /// revision (`initialize` offering it). Without this, the client tries 2026-07-28 first
    /// and falls back to `initialize` with the newest legacy revision.
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.version = Some(version);
        self
    }

    /// The pinned revision, if any.
    pub fn pinned_version(&self) -> Option<ProtocolVersion> {
        self.version
    }

    /// How long a request waits for its answer (the handshake included); on expiry it
    /// fails with [`Error::Timeout`](crate::Error::Timeout) and the server is told it was
    /// cancelled.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// How many events ([`Client::events`](crate::Client::events)) are kept for a reader
    /// that falls behind before the oldest are dropped.
    pub fn event_capacity(mut self, capacity: usize) -> Self {
        self.event_capacity = capacity;
        self
    }

    /// The largest message accepted from the server, in bytes; a longer one closes the
    /// connection with [`Error::InvalidMessage`](crate::Error::InvalidMessage).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Answers the server's requests (sampling, roots, elicitation) and 2026 input requests.
    pub fn handler(mut self, handler: impl ClientHandler) -> Self {
        self.handler = ServerRequests(Some(Arc::new(handler)));
        self
    }
}
