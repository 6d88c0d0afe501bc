//! What the engine tells the observers of a request: how its reply ended, as
//! [`ResponseInfo`](crate::observe::ResponseInfo) reads it, and the protocol revision it was
//! served in, for the request's span.

pub(crate) use crate::observe::record_version;

use super::Reply;
use crate::observe::{Outcome, ReplyFacts};

impl ReplyFacts for Reply {
    fn outcome(&self) -> Outcome {
        match self {
            Reply::Response(r) => match r.error {
                Some(code) => Outcome::Error(code.0),
                None if r.tool_error => Outcome::ToolError,
                None => Outcome::Ok,
            },
            Reply::Silent => Outcome::Cancelled,
            Reply::Listen(_) => Outcome::Listening,
        }
    }

    fn error_json(&self) -> Option<&str> {
        match self {
            Reply::Response(r) if r.error.is_some() => Some(&r.json),
            _ => None,
        }
    }
}
