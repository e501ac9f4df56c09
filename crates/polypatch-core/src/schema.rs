//! What JSON Schemas derived with `schemars` share: objects closed to fields they do not
//! list (the report's schema, and the dialects' [`Dialect::schema`](crate::Dialect::schema)).

/// `schema` with `"additionalProperties": false` on every object type that lists its
/// properties and does not say otherwise (conditions such as `if` / `then`, which name
/// properties without being a type, are left open).
pub fn closed_schema(schema: &schemars::Schema) -> serde_json::Value {
    fn close(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                let is_type = map.get("type").is_some_and(|t| t == "object");
                if is_type && map.contains_key("properties") && !map.contains_key("additionalProperties") {
                    map.insert("additionalProperties".into(), serde_json::Value::Bool(false));
                }
                map.values_mut().for_each(close);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(close),
            _ => {}
        }
    }
    let mut value = schema.as_value().clone();
    close(&mut value);
    value
}
