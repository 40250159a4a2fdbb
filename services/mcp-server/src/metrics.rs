//! The MCP server's own counters (the limiter registers its decisions beside them).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

/// The labels of one tool call: a known tool's name (unknown names are never counted, so a
/// caller cannot grow the label set) and `ok` or `error`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ToolLabels {
    /// The tool.
    pub tool: String,
    /// `ok`, or `error` for a result with `isError: true`.
    pub outcome: String,
}

/// `mcp_tool_calls_total{tool, outcome}`.
#[derive(Clone, Debug, Default)]
pub struct ToolMetrics {
    calls: Family<ToolLabels, Counter>,
}

impl ToolMetrics {
    /// Registers the counters.
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "mcp_tool_calls",
            "Tool calls answered, by tool and outcome",
            self.calls.clone(),
        );
    }

    /// Counts one answered call.
    pub fn record(&self, tool: &str, is_error: bool) {
        let outcome = if is_error { "error" } else { "ok" };
        self.calls
            .get_or_create(&ToolLabels {
                tool: tool.to_owned(),
                outcome: outcome.to_owned(),
            })
            .inc();
    }
}
