//! 2026 multi round-trip requests: a server that needs something from the client (a sampled
//! message, the roots, an elicited answer) returns an [`InputRequiredResult`] naming its
//! [`InputRequests`]; the client fulfils them and calls again with the matching
//! [`InputResponses`]. A result that may come back either way is a [`MrtrResult`].

use std::collections::BTreeMap;

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::content::from_value;

use crate::types::{
    CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ElicitRequest,
    ElicitRequestFormParams, ElicitRequestParams, ElicitRequestURLParams, ElicitResult, JSONObject,
    ListRootsRequest, ListRootsResult, McpRequest, RequestMetaObject, ResultMetaObject, ResultType,
    WireResult,
};
use crate::{Era, ProtocolVersion};

/// One request the server asks the client to fulfil before it can finish: sampling, roots or
/// elicitation. Embedded in an [`InputRequiredResult`], so it has no `jsonrpc`/`id`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InputRequest {
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageRequest),
    /// `roots/list`.
    ListRoots(ListRootsRequest),
    /// `elicitation/create`.
    Elicit(ElicitRequest),
}

impl InputRequest {
    /// A `roots/list` input request.
    pub fn list_roots() -> Self {
        InputRequest::ListRoots(ListRootsRequest::input_request())
    }

    /// The method of the request.
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::CreateMessage(_) => CreateMessageRequest::METHOD,
            InputRequest::ListRoots(_) => ListRootsRequest::METHOD,
            InputRequest::Elicit(_) => ElicitRequest::METHOD,
        }
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        let Some(method) = value.get("method").and_then(serde_json::Value::as_str) else {
            return Err(D::Error::missing_field("method"));
        };
        match method {
            CreateMessageRequest::METHOD => from_value(value).map(InputRequest::CreateMessage),
            ListRootsRequest::METHOD => from_value(value).map(InputRequest::ListRoots),
            ElicitRequest::METHOD => from_value(value).map(InputRequest::Elicit),
            other => Err(D::Error::unknown_variant(
                other,
                &[
                    CreateMessageRequest::METHOD,
                    ListRootsRequest::METHOD,
                    ElicitRequest::METHOD,
                ],
            )),
        }
    }
}

impl From<CreateMessageRequestParams> for InputRequest {
    /// A sampling input request.
    fn from(params: CreateMessageRequestParams) -> Self {
        InputRequest::CreateMessage(CreateMessageRequest {
            jsonrpc: None,
            id: None,
            params,
        })
    }
}

impl From<ElicitRequestParams> for InputRequest {
    /// An elicitation input request.
    fn from(params: ElicitRequestParams) -> Self {
        InputRequest::Elicit(ElicitRequest {
            jsonrpc: None,
            id: None,
            params,
        })
    }
}

impl From<ElicitRequestFormParams> for InputRequest {
    /// A form-mode elicitation input request.
    fn from(params: ElicitRequestFormParams) -> Self {
        ElicitRequestParams::Form(params).into()
    }
}

impl From<ElicitRequestURLParams> for InputRequest {
    /// A URL-mode elicitation input request.
    fn from(params: ElicitRequestURLParams) -> Self {
        ElicitRequestParams::Url(params).into()
    }
}

impl From<CreateMessageRequest> for InputRequest {
    fn from(req: CreateMessageRequest) -> Self {
        InputRequest::CreateMessage(req)
    }
}

impl From<ListRootsRequest> for InputRequest {
    fn from(req: ListRootsRequest) -> Self {
        InputRequest::ListRoots(req)
    }
}

impl From<ElicitRequest> for InputRequest {
    fn from(req: ElicitRequest) -> Self {
        InputRequest::Elicit(req)
    }
}

/// The input requests of an [`InputRequiredResult`], by server-chosen key.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's answer to one [`InputRequest`].
///
/// The wire form has no tag; the variants are tried in this order, each requiring members
/// the later ones lack (`role`/`content`/`model`, then `roots`, then `action`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InputResponse {
    /// The answer to `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// The answer to `roots/list`.
    ListRoots(ListRootsResult),
    /// The answer to `elicitation/create`.
    Elicit(ElicitResult),
}

impl InputResponse {
    /// The sampling result, if this is one.
    pub fn as_create_message(&self) -> Option<&CreateMessageResult> {
        match self {
            InputResponse::CreateMessage(r) => Some(r),
            _ => None,
        }
    }

    /// The roots result, if this is one.
    pub fn as_list_roots(&self) -> Option<&ListRootsResult> {
        match self {
            InputResponse::ListRoots(r) => Some(r),
            _ => None,
        }
    }

    /// The elicitation result, if this is one.
    pub fn as_elicit(&self) -> Option<&ElicitResult> {
        match self {
            InputResponse::Elicit(r) => Some(r),
            _ => None,
        }
    }
}

/// The client's answers, under the keys of the [`InputRequests`] they answer.
pub type InputResponses = BTreeMap<String, InputResponse>;

/// A 2026 result saying the server needs input before it can finish: the client fulfils
/// `inputRequests` and repeats the original request with the answers and `requestState`.
///
/// It has no legacy-era form; a legacy server must not send it.
///
/// # Examples
///
/// ```
/// use ferromcp_core::types::{ElicitRequestFormParams, InputRequiredResult};
///
/// let result = InputRequiredResult::new()
///     .with_input_request("confirm", ElicitRequestFormParams::new("Proceed?", Default::default()))
///     .with_request_state("step-2");
/// let json = serde_json::to_value(&result).unwrap();
/// assert_eq!(json["resultType"], "input_required");
/// assert_eq!(json["inputRequests"]["confirm"]["method"], "elicitation/create");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Always `input_required` when sent (see [`WireResult`]); read as that when absent.
    #[serde(default = "input_required")]
    pub result_type: ResultType,
    /// What the client must fulfil, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client echoes back on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

fn input_required() -> ResultType {
    ResultType::InputRequired
}

impl Default for InputRequiredResult {
    fn default() -> Self {
        InputRequiredResult::new()
    }
}

impl InputRequiredResult {
    /// An input-required result with no input requests and no state yet.
    pub fn new() -> Self {
        InputRequiredResult {
            meta: None,
            result_type: ResultType::InputRequired,
            input_requests: None,
            request_state: None,
            extra: JSONObject::new(),
        }
    }

    /// Adds the input request `request` under `key` (replacing one with the same key).
    pub fn insert_input_request(
        &mut self,
        key: impl Into<String>,
        request: impl Into<InputRequest>,
    ) {
        self.input_requests
            .get_or_insert_with(BTreeMap::new)
            .insert(key.into(), request.into());
    }

    /// This result with the input request `request` added under `key`.
    #[must_use]
    pub fn with_input_request(
        mut self,
        key: impl Into<String>,
        request: impl Into<InputRequest>,
    ) -> Self {
        self.insert_input_request(key, request);
        self
    }

    /// This result with `state` as the opaque request state.
    #[must_use]
    pub fn with_request_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }
}

impl WireResult for InputRequiredResult {
    /// In the modern era `resultType` is forced to `input_required`; the legacy era has no
    /// such result, so nothing is changed.
    fn prepare_for(&mut self, version: ProtocolVersion) {
        if version.era() == Era::Modern {
            self.result_type = ResultType::InputRequired;
        }
    }
}

/// The params members a 2026 request carries when it is retried with input: the answers and
/// the echoed state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputResponseRequestParams {
    /// Request metadata (required in 2026).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// The answers to the server's input requests, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The state from the [`InputRequiredResult`] being answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// A result that is either final or an [`InputRequiredResult`] (the `result` of a 2026
/// `tools/call`, `prompts/get` or `resources/read` response).
///
/// Deserialization reads `resultType`: `"input_required"` gives
/// [`InputRequired`](Self::InputRequired); any other value, or none (legacy servers), gives
/// [`Complete`](Self::Complete). Serialization writes the inner value.
///
/// # Examples
///
/// ```
/// use ferromcp_core::types::{CallToolResult, MrtrResult};
///
/// let r: MrtrResult<CallToolResult> =
///     serde_json::from_str(r#"{"resultType":"input_required","requestState":"s"}"#).unwrap();
/// assert!(matches!(r, MrtrResult::InputRequired(_)));
/// let r: MrtrResult<CallToolResult> =
///     serde_json::from_str(r#"{"content":[{"type":"text","text":"ok"}]}"#).unwrap();
/// assert!(matches!(r, MrtrResult::Complete(_)));
/// ```
// Clippy sizes the generic `T` as zero; the results it wraps are as large as the other
// variant, so boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum MrtrResult<T> {
    /// The final result.
    Complete(T),
    /// The server needs input first.
    InputRequired(InputRequiredResult),
}

impl<T> MrtrResult<T> {
    /// The final result, if this is one.
    pub fn complete(self) -> Option<T> {
        match self {
            MrtrResult::Complete(t) => Some(t),
            MrtrResult::InputRequired(_) => None,
        }
    }

    /// Whether the server asked for input.
    pub fn is_input_required(&self) -> bool {
        matches!(self, MrtrResult::InputRequired(_))
    }
}

impl<T> From<InputRequiredResult> for MrtrResult<T> {
    fn from(r: InputRequiredResult) -> Self {
        MrtrResult::InputRequired(r)
    }
}

impl<T: Serialize> Serialize for MrtrResult<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MrtrResult::Complete(t) => t.serialize(s),
            MrtrResult::InputRequired(r) => r.serialize(s),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for MrtrResult<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        let input_required = value.get("resultType").and_then(serde_json::Value::as_str)
            == Some(ResultType::InputRequired.as_str());
        if input_required {
            from_value(value).map(MrtrResult::InputRequired)
        } else {
            from_value(value).map(MrtrResult::Complete)
        }
    }
}

impl<T: WireResult> WireResult for MrtrResult<T> {
    fn prepare_for(&mut self, version: ProtocolVersion) {
        match self {
            MrtrResult::Complete(t) => t.prepare_for(version),
            MrtrResult::InputRequired(r) => r.prepare_for(version),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{CallToolResult, Role};
    use serde_json::json;

    #[test]
    fn official_input_requests_round_trip_by_method() {
        let json = json!({
            "github_login": {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": "Please provide your GitHub username",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}},
                        "required": ["name"]
                    }
                }
            },
            "capital_of_france": {
                "method": "sampling/createMessage",
                "params": {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Capital?"}}],
                    "maxTokens": 100
                }
            },
            "roots": {"method": "roots/list"}
        });
        let reqs: InputRequests = serde_json::from_value(json.clone()).unwrap();
        assert!(matches!(reqs["github_login"], InputRequest::Elicit(_)));
        assert!(matches!(
            reqs["capital_of_france"],
            InputRequest::CreateMessage(_)
        ));
        assert!(matches!(reqs["roots"], InputRequest::ListRoots(_)));
        assert_eq!(reqs["roots"].method(), "roots/list");
        assert_eq!(serde_json::to_value(&reqs).unwrap(), json);

        let bad =
            serde_json::from_value::<InputRequest>(json!({"method": "tools/call", "params": {}}));
        assert!(bad.unwrap_err().to_string().contains("tools/call"));
        let bad = serde_json::from_value::<InputRequest>(json!({"params": {}}));
        assert!(bad.unwrap_err().to_string().contains("method"));
    }

    #[test]
    fn input_responses_land_in_the_right_variant() {
        let json = json!({
            "github_login": {"action": "accept", "content": {"name": "octocat"}},
            "capital_of_france": {
                "role": "assistant",
                "content": {"type": "text", "text": "Paris."},
                "model": "claude-3-sonnet-20240307",
                "stopReason": "endTurn"
            },
            "roots": {"roots": [{"uri": "file:///home/user/project", "name": "Project"}]},
            "declined": {"action": "decline"}
        });
        let resp: InputResponses = serde_json::from_value(json.clone()).unwrap();
        assert!(resp["github_login"].as_elicit().is_some());
        assert!(resp["declined"].as_elicit().is_some());
        let sampled = resp["capital_of_france"].as_create_message().unwrap();
        assert_eq!(sampled.role, Role::Assistant);
        assert_eq!(resp["roots"].as_list_roots().unwrap().roots.len(), 1);
        assert_eq!(serde_json::to_value(&resp).unwrap(), json);
    }

    #[test]
    fn input_required_result_round_trips_and_builds() {
        let json = json!({
            "resultType": "input_required",
            "requestState": "eyJwcm9ncmVzcyI6IjUwJSJ9"
        });
        let r: InputRequiredResult = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(r.request_state.as_deref(), Some("eyJwcm9ncmVzcyI6IjUwJSJ9"));
        assert_eq!(serde_json::to_value(&r).unwrap(), json);

        let mut built = InputRequiredResult::new()
            .with_input_request(
                "login",
                ElicitRequestURLParams::new("Sign in", "https://example.com/login"),
            )
            .with_request_state("s1");
        built.result_type = ResultType::Complete;
        built.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(
            serde_json::to_value(&built).unwrap(),
            json!({
                "resultType": "input_required",
                "inputRequests": {
                    "login": {
                        "method": "elicitation/create",
                        "params": {"mode": "url", "message": "Sign in", "url": "https://example.com/login"}
                    }
                },
                "requestState": "s1"
            })
        );
    }

    #[test]
    fn mrtr_result_dispatches_on_result_type() {
        let r: MrtrResult<CallToolResult> =
            serde_json::from_value(json!({"resultType": "input_required", "requestState": "x"}))
                .unwrap();
        assert!(r.is_input_required());

        for complete in [
            json!({"content": [{"type": "text", "text": "hi"}]}),
            json!({"content": [{"type": "text", "text": "hi"}], "resultType": "complete"}),
        ] {
            let r: MrtrResult<CallToolResult> = serde_json::from_value(complete.clone()).unwrap();
            assert!(!r.is_input_required());
            assert_eq!(serde_json::to_value(&r).unwrap(), complete);
        }

        let mut r: MrtrResult<CallToolResult> = MrtrResult::Complete(CallToolResult::text("hi"));
        r.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(serde_json::to_value(&r).unwrap()["resultType"], "complete");
        r.prepare_for(ProtocolVersion::V2025_11_25);
        assert!(
            serde_json::to_value(&r)
                .unwrap()
                .get("resultType")
                .is_none()
        );

        let mut r: MrtrResult<CallToolResult> =
            InputRequiredResult::new().with_request_state("s").into();
        r.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(
            serde_json::to_value(&r).unwrap()["resultType"],
            "input_required"
        );
    }

    #[test]
    fn retry_params_carry_responses_and_state() {
        let json = json!({
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
            "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
            "requestState": "s1"
        });
        let p: InputResponseRequestParams = serde_json::from_value(json.clone()).unwrap();
        assert!(
            p.input_responses.as_ref().unwrap()["confirm"]
                .as_elicit()
                .is_some()
        );
        assert_eq!(serde_json::to_value(&p).unwrap(), json);
    }
}
