export { escapeHtml } from './escape-html.js';
export {
  callPoints,
  type InspectConversationOptions,
  inspectConversation,
} from './inspect-conversation.js';
export { type InspectSessionOptions, inspectSession } from './inspect-session.js';
export * from './inspection.js';
export { INSPECTOR_CONTENT_SECURITY_POLICY, renderInspectorHtml } from './render-html.js';
export { type RunInspectorOptions, runInspector } from './run-inspector.js';
export {
  INSPECTOR_HOST,
  type InspectorServer,
  type ServeInspectorOptions,
  serveInspector,
} from './serve-inspector.js';
export { diffSummaries } from './summary-diff.js';
