//! Trait implementations shared by every typed message. The macros here only implement
//! traits for types declared in the area modules; they declare no types themselves.

/// Implements `Serialize`, `Deserialize` and [`McpRequest`](crate::types::McpRequest) for a
/// request struct `{ id: RequestId, params: P }` (or `params: Option<P>` with `optional`),
/// writing and checking `"jsonrpc": "2.0"` and the constant `method`. With `embedded` (or
/// `embedded optional`), for server-to-client requests that 2026 embeds in `InputRequests`,
/// the struct is `{ jsonrpc: Option<JsonRpcVersion>, id: Option<RequestId>, params }`.
macro_rules! request {
    ($ty:ident, $method:literal, $params:ty => $result:ty) => {
        request!(@common $ty, $method, $params => $result);
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeStruct;
                let mut st = s.serialize_struct(stringify!($ty), 4)?;
                st.serialize_field("jsonrpc", &$crate::jsonrpc::JsonRpcVersion)?;
                st.serialize_field("id", &self.id)?;
                st.serialize_field("method", $method)?;
                st.serialize_field("params", &self.params)?;
                st.end()
            }
        }
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                let repr = <$crate::types::wire::RequestRepr<$params> as ::serde::Deserialize>::deserialize(d)?;
                $crate::types::wire::check_method::<D::Error>(&repr.method, $method)?;
                let params = repr
                    .params
                    .ok_or_else(|| <D::Error as ::serde::de::Error>::missing_field("params"))?;
                ::core::result::Result::Ok($ty { id: repr.id, params })
            }
        }
    };
    ($ty:ident, $method:literal, optional $params:ty => $result:ty) => {
        request!(@common $ty, $method, $params => $result);
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeStruct;
                let mut st = s.serialize_struct(stringify!($ty), 4)?;
                st.serialize_field("jsonrpc", &$crate::jsonrpc::JsonRpcVersion)?;
                st.serialize_field("id", &self.id)?;
                st.serialize_field("method", $method)?;
                match &self.params {
                    Some(p) => st.serialize_field("params", p)?,
                    None => st.skip_field("params")?,
                }
                st.end()
            }
        }
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                let repr = <$crate::types::wire::RequestRepr<$params> as ::serde::Deserialize>::deserialize(d)?;
                $crate::types::wire::check_method::<D::Error>(&repr.method, $method)?;
                ::core::result::Result::Ok($ty { id: repr.id, params: repr.params })
            }
        }
    };
    // A server-to-client request that 2025-11-25 sends as a JSON-RPC request and 2026 embeds
    // in `InputRequests` without `jsonrpc`/`id`: struct `{ jsonrpc: Option<JsonRpcVersion>,
    // id: Option<RequestId>, params: P }` (or `params: Option<P>` with `embedded optional`);
    // `jsonrpc` and `id` are written only when present.
    ($ty:ident, $method:literal, embedded $params:ty => $result:ty) => {
        request!(@common $ty, $method, $params => $result);
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeStruct;
                let mut st = s.serialize_struct(stringify!($ty), 4)?;
                match &self.jsonrpc {
                    Some(v) => st.serialize_field("jsonrpc", v)?,
                    None => st.skip_field("jsonrpc")?,
                }
                match &self.id {
                    Some(id) => st.serialize_field("id", id)?,
                    None => st.skip_field("id")?,
                }
                st.serialize_field("method", $method)?;
                st.serialize_field("params", &self.params)?;
                st.end()
            }
        }
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                let repr = <$crate::types::wire::EmbeddedRequestRepr<$params> as ::serde::Deserialize>::deserialize(d)?;
                $crate::types::wire::check_method::<D::Error>(&repr.method, $method)?;
                let params = repr
                    .params
                    .ok_or_else(|| <D::Error as ::serde::de::Error>::missing_field("params"))?;
                ::core::result::Result::Ok($ty { jsonrpc: repr.jsonrpc, id: repr.id, params })
            }
        }
    };
    ($ty:ident, $method:literal, embedded optional $params:ty => $result:ty) => {
        request!(@common $ty, $method, $params => $result);
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeStruct;
                let mut st = s.serialize_struct(stringify!($ty), 4)?;
                match &self.jsonrpc {
                    Some(v) => st.serialize_field("jsonrpc", v)?,
                    None => st.skip_field("jsonrpc")?,
                }
                match &self.id {
                    Some(id) => st.serialize_field("id", id)?,
                    None => st.skip_field("id")?,
                }
                st.serialize_field("method", $method)?;
                match &self.params {
                    Some(p) => st.serialize_field("params", p)?,
                    None => st.skip_field("params")?,
                }
                st.end()
            }
        }
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                let repr = <$crate::types::wire::EmbeddedRequestRepr<$params> as ::serde::Deserialize>::deserialize(d)?;
                $crate::types::wire::check_method::<D::Error>(&repr.method, $method)?;
                ::core::result::Result::Ok($ty { jsonrpc: repr.jsonrpc, id: repr.id, params: repr.params })
            }
        }
    };
    (@common $ty:ident, $method:literal, $params:ty => $result:ty) => {
        impl $crate::types::McpRequest for $ty {
            const METHOD: &'static str = $method;
            type Params = $params;
            type Result = $result;
        }
    };
}

/// Implements `Serialize`, `Deserialize` and
/// [`McpNotification`](crate::types::McpNotification) for a notification struct
/// `{ params: P }` (or `params: Option<P>` with `optional`).
macro_rules! notification {
    ($ty:ident, $method:literal, $params:ty) => {
        notification!(@common $ty, $method, $params);
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeStruct;
                let mut st = s.serialize_struct(stringify!($ty), 3)?;
                st.serialize_field("jsonrpc", &$crate::jsonrpc::JsonRpcVersion)?;
                st.serialize_field("method", $method)?;
                st.serialize_field("params", &self.params)?;
                st.end()
            }
        }
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                let repr = <$crate::types::wire::NotificationRepr<$params> as ::serde::Deserialize>::deserialize(d)?;
                $crate::types::wire::check_method::<D::Error>(&repr.method, $method)?;
                let params = repr
                    .params
                    .ok_or_else(|| <D::Error as ::serde::de::Error>::missing_field("params"))?;
                ::core::result::Result::Ok($ty { params })
            }
        }
    };
    ($ty:ident, $method:literal, optional $params:ty) => {
        notification!(@common $ty, $method, $params);
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeStruct;
                let mut st = s.serialize_struct(stringify!($ty), 3)?;
                st.serialize_field("jsonrpc", &$crate::jsonrpc::JsonRpcVersion)?;
                st.serialize_field("method", $method)?;
                match &self.params {
                    Some(p) => st.serialize_field("params", p)?,
                    None => st.skip_field("params")?,
                }
                st.end()
            }
        }
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                let repr = <$crate::types::wire::NotificationRepr<$params> as ::serde::Deserialize>::deserialize(d)?;
                $crate::types::wire::check_method::<D::Error>(&repr.method, $method)?;
                ::core::result::Result::Ok($ty { params: repr.params })
            }
        }
    };
    (@common $ty:ident, $method:literal, $params:ty) => {
        impl $crate::types::McpNotification for $ty {
            const METHOD: &'static str = $method;
            type Params = $params;
        }
    };
}

/// Implements `Serialize` and `Deserialize` for a 2026 `…ResultResponse` struct
/// `{ id: RequestId, result: R }`.
macro_rules! result_response {
    ($ty:ident, $result:ty) => {
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                ::serde::Serialize::serialize(&$crate::jsonrpc::WireResponse::new(&self.id, &self.result), s)
            }
        }
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                let repr = <$crate::types::wire::ResponseRepr<$result> as ::serde::Deserialize>::deserialize(d)?;
                ::core::result::Result::Ok($ty { id: repr.id, result: repr.result })
            }
        }
    };
}

/// Implements [`WireResult`](crate::types::WireResult) for a result struct with a
/// `result_type: Option<ResultType>` field, and with `cacheable` also `ttl_ms` and
/// `cache_scope` fields; `each field` also prepares every item of `field` with its own
/// `prepare_for(version)`.
macro_rules! wire_result {
    ($ty:ident) => {
        impl $crate::types::WireResult for $ty {
            fn prepare_for(&mut self, version: $crate::ProtocolVersion) {
                self.result_type = match version.era() {
                    $crate::Era::Modern => Some(
                        self.result_type
                            .take()
                            .unwrap_or($crate::types::ResultType::Complete),
                    ),
                    $crate::Era::Legacy => None,
                };
            }
        }
    };
    ($ty:ident, cacheable $(, each $items:ident)?) => {
        impl $crate::types::WireResult for $ty {
            fn prepare_for(&mut self, version: $crate::ProtocolVersion) {
                match version.era() {
                    $crate::Era::Modern => {
                        self.result_type = Some(
                            self.result_type
                                .take()
                                .unwrap_or($crate::types::ResultType::Complete),
                        );
                        let hints = $crate::types::CacheHints::default();
                        self.ttl_ms.get_or_insert(hints.ttl_ms);
                        self.cache_scope.get_or_insert(hints.cache_scope);
                    }
                    $crate::Era::Legacy => {
                        self.result_type = None;
                        self.ttl_ms = None;
                        self.cache_scope = None;
                    }
                }
                $(
                    for item in &mut self.$items {
                        item.prepare_for(version);
                    }
                )?
            }
        }
        impl $crate::types::Cacheable for $ty {
            fn set_cache_hints(&mut self, hints: $crate::types::CacheHints) {
                self.ttl_ms = Some(hints.ttl_ms);
                self.cache_scope = Some(hints.cache_scope);
            }
        }
    };
}
