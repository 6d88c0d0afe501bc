//! How a test client presents itself: its revision, capabilities, the closures that answer
//! the server's requests, and the caller it acts as.

use super::*;

type ElicitFn = dyn Fn(ElicitRequestParams) -> ElicitResult + Send + Sync;
type SampleFn = dyn Fn(CreateMessageRequestParams) -> CreateMessageResult + Send + Sync;

/// How a [`TestClient`] presents itself.
#[derive(Clone)]
pub struct ClientOptions {
    pub(super) version: ProtocolVersion,
    info: Implementation,
    elicit: Option<Arc<ElicitFn>>,
    sample: Option<Arc<SampleFn>>,
    roots: Option<Vec<Root>>,
    log_level: Option<ferromcp_core::types::LoggingLevel>,
    /// Declared extensions and their settings.
    extensions: Vec<(String, serde_json::Map<String, Value>)>,
    sampling_tools: bool,
    pub(super) max_rounds: usize,
    pub(super) principal: Option<Principal>,
}

impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions")
            .field("version", &self.version)
            .field("elicit", &self.elicit.is_some())
            .field("sample", &self.sample.is_some())
            .field("roots", &self.roots)
            .field("principal", &self.principal)
            .finish()
    }
}

impl ClientOptions {
    /// A legacy-era client speaking 2025-11-25.
    pub fn legacy() -> Self {
        Self::version(ProtocolVersion::V2025_11_25)
    }

    /// A modern-era client speaking 2026-07-28.
    pub fn modern() -> Self {
        Self::version(ProtocolVersion::V2026_07_28)
    }

    /// The protocol revision this client speaks.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// A client speaking `version`.
    pub fn version(version: ProtocolVersion) -> Self {
        ClientOptions {
            version,
            info: Implementation::new("ferromcp-testing", env!("CARGO_PKG_VERSION")),
            elicit: None,
            sample: None,
            roots: None,
            log_level: None,
            extensions: Vec::new(),
            sampling_tools: false,
            max_rounds: 8,
            principal: None,
        }
    }

    /// Declares elicitation and answers every elicitation with `f`.
    pub fn with_elicitation(
        mut self,
        f: impl Fn(ElicitRequestParams) -> ElicitResult + Send + Sync + 'static,
    ) -> Self {
        self.elicit = Some(Arc::new(f));
        self
    }

    /// Declares sampling and answers every sampling request with `f`.
    pub fn with_sampling(
        mut self,
        f: impl Fn(CreateMessageRequestParams) -> CreateMessageResult + Send + Sync + 'static,
    ) -> Self {
        self.sample = Some(Arc::new(f));
        self
    }

    /// Declares `sampling.tools` as well (2025-11-25 onwards): sampling requests may carry
    /// tools. Answers them with the [`with_sampling`](Self::with_sampling) closure.
    pub fn with_sampling_tools(mut self) -> Self {
        self.sampling_tools = true;
        self
    }

    /// Declares roots and answers `roots/list` with these.
    pub fn with_roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(roots);
        self
    }

    /// Modern era: asks for log messages at this level and above on every request. (Legacy
    /// era: use `logging/setLevel` through [`TestClient::request`].)
    pub fn with_log_level(mut self, level: ferromcp_core::types::LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// Declares a 2026 extension (`capabilities.extensions`), such as
    /// `io.modelcontextprotocol/tasks`.
    pub fn with_extension(self, id: &str) -> Self {
        self.with_extension_settings(id, serde_json::Map::new())
    }

    /// Declares an extension with these settings (`capabilities.extensions[id]`), in both
    /// eras; a server reads them with
    /// [`Context::client_extension`](crate::Context::client_extension).
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::testing::ClientOptions;
    ///
    /// let settings = serde_json::json!({"mimeTypes": ["text/html"]});
    /// let options = ClientOptions::legacy()
    ///     .with_extension_settings("com.example/ui", settings.as_object().cloned().unwrap_or_default());
    /// # let _ = options;
    /// ```
    pub fn with_extension_settings(
        mut self,
        id: &str,
        settings: serde_json::Map<String, Value>,
    ) -> Self {
        self.extensions.push((id.to_owned(), settings));
        self
    }

    /// Acts as `principal` on every request, as if an authentication layer had vouched for
    /// it: its scopes decide which tools, resources and prompts it sees and may use, and
    /// handlers read it with [`Context::principal`](crate::Context::principal). (Over HTTP
    /// it is put in each request's extensions, where an authentication layer in front of
    /// the router would replace it.)
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::prelude::*;
    /// use ferromcp::Principal;
    /// use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
    ///
    /// struct Incidents;
    ///
    /// #[ferromcp::server]
    /// impl Incidents {
    ///     /// Resolves an incident.
    ///     #[tool(scopes = ["incidents:write"])]
    ///     fn resolve(&self, id: u32) -> String {
    ///         format!("resolved {id}")
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::new(Incidents).unwrap();
    /// let reader = Principal::new("ana").with_scopes(["incidents:read"]);
    /// let client = TestClient::connect(&server, ClientOptions::modern().with_principal(reader)).await.unwrap();
    /// let refused = client.call_tool("resolve", serde_json::json!({"id": 7})).await;
    /// assert!(matches!(refused, Err(TestClientError::Rpc(e)) if e.message.contains("incidents:write")));
    /// # }
    /// ```
    pub fn with_principal(mut self, principal: Principal) -> Self {
        self.principal = Some(principal);
        self
    }

    /// The `params` of a request as this client sends them: in the modern era with the
    /// `_meta` envelope (members of `params._meta` given kept).
    pub(super) fn envelope(&self, params: Option<Value>) -> Option<Value> {
        if self.version.era() == Era::Legacy {
            return params;
        }
        let mut params = params.unwrap_or_else(|| json!({}));
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": self.version.as_str(),
            "io.modelcontextprotocol/clientCapabilities": self.capabilities(),
            "io.modelcontextprotocol/clientInfo": self.info,
        });
        if let Some(level) = self.log_level {
            meta["io.modelcontextprotocol/logLevel"] = json!(level);
        }
        if let Some(Value::Object(extra)) = params.get("_meta") {
            for (k, v) in extra {
                meta[k] = v.clone();
            }
        }
        params["_meta"] = meta;
        Some(params)
    }

    /// The `initialize` request's params (legacy era).
    pub(super) fn initialize_params(&self) -> Value {
        json!({
            "protocolVersion": self.version.as_str(),
            "capabilities": self.capabilities(),
            "clientInfo": self.info,
        })
    }

    fn capabilities(&self) -> ClientCapabilities {
        let mut caps = json!({});
        for (id, settings) in &self.extensions {
            caps["extensions"][id] = Value::Object(settings.clone());
        }
        if self.elicit.is_some() {
            caps["elicitation"] = json!({"form": {}, "url": {}});
        }
        if self.sample.is_some() {
            caps["sampling"] = json!({});
            if self.sampling_tools {
                caps["sampling"]["tools"] = json!({});
            }
        }
        if self.roots.is_some() {
            caps["roots"] = json!({"listChanged": true});
        }
        serde_json::from_value(caps).unwrap_or_default()
    }

    pub(super) fn answer(&self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let no = |what: &str| {
            ErrorObject::method_not_found(&format!("{what} (not configured on the test client)"))
        };
        match method {
            "elicitation/create" => {
                let f = self.elicit.as_ref().ok_or_else(|| no(method))?;
                let p = serde_json::from_value(params)
                    .map_err(|e| ErrorObject::invalid_params(e.to_string()))?;
                serde_json::to_value(f(p)).map_err(|e| ErrorObject::internal_error(e.to_string()))
            }
            "sampling/createMessage" => {
                let f = self.sample.as_ref().ok_or_else(|| no(method))?;
                let p = serde_json::from_value(params)
                    .map_err(|e| ErrorObject::invalid_params(e.to_string()))?;
                serde_json::to_value(f(p)).map_err(|e| ErrorObject::internal_error(e.to_string()))
            }
            "roots/list" => {
                let roots = self.roots.clone().ok_or_else(|| no(method))?;
                serde_json::to_value(ListRootsResult::new(roots))
                    .map_err(|e| ErrorObject::internal_error(e.to_string()))
            }
            "ping" => Ok(json!({})),
            other => Err(no(other)),
        }
    }
}
