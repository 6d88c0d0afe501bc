//! Argument completion: suggestions for a prompt argument or a resource template variable.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use crate::types::content::{from_value, tagged_value, type_tag};
use crate::types::{
    JSONObject, PromptRefTag, PromptReference, RequestId, RequestMetaObject, ResultMetaObject,
    ResultType, WireResult,
};
use crate::{Era, ProtocolVersion};

/// The `"type": "ref/resource"` of a [`ResourceTemplateReference`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceRefTag;
type_tag!(ResourceRefTag = "ref/resource");

/// The most values one completion result may carry.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// `completion/complete`: asks for suggestions for one argument.
#[derive(Debug, Clone, PartialEq)]
pub struct CompleteRequest {
    /// The request id.
    pub id: RequestId,
    /// What to complete.
    pub params: CompleteRequestParams,
}

request!(CompleteRequest, "completion/complete", CompleteRequestParams => CompleteResult);

/// The params of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteRequestParams {
    /// The prompt or resource template the argument belongs to.
    #[serde(rename = "ref")]
    pub r#ref: CompletionReference,
    /// The argument and what has been typed so far.
    pub argument: CompletionArgument,
    /// 2025-06-18+: values of the other arguments, already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Request metadata (required in 2026).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl CompleteRequestParams {
    /// Asks to complete `argument` of `reference`, given its partial `value`.
    pub fn new(
        reference: impl Into<CompletionReference>,
        argument: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        CompleteRequestParams {
            r#ref: reference.into(),
            argument: CompletionArgument {
                name: argument.into(),
                value: value.into(),
                extra: JSONObject::new(),
            },
            context: None,
            meta: None,
            extra: JSONObject::new(),
        }
    }
}

/// The `argument` member of [`CompleteRequestParams`] (inline in the schema).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// The argument's name.
    pub name: String,
    /// What has been typed so far.
    pub value: String,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The `context` member of [`CompleteRequestParams`] (inline in the schema).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionContext {
    /// The values of arguments already filled in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// What a completion is for: a prompt or a resource template. Dispatched on `type`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CompletionReference {
    /// `"ref/prompt"`.
    Prompt(PromptReference),
    /// `"ref/resource"`.
    ResourceTemplate(ResourceTemplateReference),
}

impl<'de> Deserialize<'de> for CompletionReference {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (tag, value) = tagged_value(d)?;
        match tag.as_str() {
            PromptRefTag::VALUE => from_value(value).map(CompletionReference::Prompt),
            ResourceRefTag::VALUE => from_value(value).map(CompletionReference::ResourceTemplate),
            other => Err(D::Error::unknown_variant(
                other,
                &["ref/prompt", "ref/resource"],
            )),
        }
    }
}

impl From<PromptReference> for CompletionReference {
    fn from(r: PromptReference) -> Self {
        CompletionReference::Prompt(r)
    }
}

impl From<ResourceTemplateReference> for CompletionReference {
    fn from(r: ResourceTemplateReference) -> Self {
        CompletionReference::ResourceTemplate(r)
    }
}

/// Names a resource template (or a resource) by URI, as the subject of a completion request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplateReference {
    /// Always `"ref/resource"`.
    #[serde(rename = "type")]
    pub r#type: ResourceRefTag,
    /// The URI or URI template.
    pub uri: String,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ResourceTemplateReference {
    /// A reference to the template (or resource) `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceTemplateReference {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// The 2025-03-26 name of [`ResourceTemplateReference`].
pub type ResourceReference = ResourceTemplateReference;

/// The answer to `completion/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// 2026: always set on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The suggestions.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl CompleteResult {
    /// A result suggesting `values` (at most [`MAX_COMPLETION_VALUES`] are kept; see
    /// [`Completion::new`]).
    pub fn new(values: Vec<String>) -> Self {
        CompleteResult {
            completion: Completion::new(values),
            ..Default::default()
        }
    }
}

impl WireResult for CompleteResult {
    /// Sets (modern era) or removes (legacy) `resultType`, and caps the values at
    /// [`MAX_COMPLETION_VALUES`] as [`Completion::new`] does.
    fn prepare_for(&mut self, version: ProtocolVersion) {
        self.result_type = match version.era() {
            Era::Modern => Some(self.result_type.take().unwrap_or(ResultType::Complete)),
            Era::Legacy => None,
        };
        self.completion.cap();
    }
}

/// The `completion` member of [`CompleteResult`] (inline in the schema).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// The suggested values, at most [`MAX_COMPLETION_VALUES`].
    pub values: Vec<String>,
    /// How many values there are in all, which may exceed those sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more values than those sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl Completion {
    /// Suggests `values`. Beyond [`MAX_COMPLETION_VALUES`] the rest are dropped, `total` is
    /// set to the full count and `hasMore` to true.
    pub fn new(values: Vec<String>) -> Self {
        let mut c = Completion {
            values,
            ..Default::default()
        };
        c.cap();
        c
    }

    fn cap(&mut self) {
        if self.values.len() > MAX_COMPLETION_VALUES {
            let total = self.values.len() as u64;
            self.values.truncate(MAX_COMPLETION_VALUES);
            self.total.get_or_insert(total);
            self.has_more = Some(true);
        }
    }
}

/// 2026: the JSON-RPC response carrying a [`CompleteResult`].
#[derive(Debug, Clone, PartialEq)]
pub struct CompleteResultResponse {
    /// The id of the request answered.
    pub id: RequestId,
    /// The result.
    pub result: CompleteResult,
}

result_response!(CompleteResultResponse, CompleteResult);

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};

    fn round_trip<T: Serialize + DeserializeOwned>(v: Value) -> T {
        let t: T = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&t).unwrap(), v);
        t
    }

    #[test]
    fn legacy_request_round_trips() {
        let req: CompleteRequest = round_trip(json!({
            "jsonrpc": "2.0", "id": 1, "method": "completion/complete",
            "params": {"ref": {"type": "ref/resource", "uri": "file:///{path}"},
                       "argument": {"name": "path", "value": "sr"}}
        }));
        assert_eq!(
            req.params.r#ref,
            ResourceReference::new("file:///{path}").into()
        );
        round_trip::<CompleteResult>(json!({"completion": {"values": ["src"], "hasMore": false}}));
    }

    #[test]
    fn modern_samples_round_trip() {
        let p: CompleteRequestParams = round_trip(json!({
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
            "ref": {"type": "ref/prompt", "name": "code_review"},
            "argument": {"name": "framework", "value": "fla"},
            "context": {"arguments": {"language": "python"}}
        }));
        assert_eq!(
            p.r#ref,
            CompletionReference::Prompt(PromptReference::new("code_review"))
        );
        round_trip::<CompleteResultResponse>(json!({
            "jsonrpc": "2.0", "id": "c",
            "result": {"resultType": "complete", "completion": {"values": ["flask"], "total": 1, "hasMore": false}}
        }));
    }

    #[test]
    fn reference_dispatch_errors() {
        let err =
            serde_json::from_value::<CompletionReference>(json!({"type": "ref/tool", "name": "x"}))
                .unwrap_err();
        assert!(
            err.to_string().contains("unknown variant `ref/tool`"),
            "{err}"
        );
        assert!(
            serde_json::from_value::<CompletionReference>(json!({"type": "ref/prompt"})).is_err()
        );
    }

    #[test]
    fn values_are_capped() {
        let many: Vec<String> = (0..150).map(|i| i.to_string()).collect();
        let r = CompleteResult::new(many.clone());
        assert_eq!(r.completion.values.len(), MAX_COMPLETION_VALUES);
        assert_eq!(r.completion.total, Some(150));
        assert_eq!(r.completion.has_more, Some(true));

        let mut raw = CompleteResult {
            completion: Completion {
                values: many,
                ..Default::default()
            },
            ..Default::default()
        };
        raw.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(raw.completion.values.len(), MAX_COMPLETION_VALUES);
        assert_eq!(raw.result_type, Some(ResultType::Complete));
        raw.prepare_for(ProtocolVersion::V2025_03_26);
        assert_eq!(raw.result_type, None);
    }
}
