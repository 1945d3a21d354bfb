/**
 * Who a record belongs to. Every store key includes the scope, so one user's or session's data is
 * never returned to another. Ids are validated before they reach a file path or key.
 */
export interface Scope {
  userId?: string;
  agentId?: string;
  sessionId?: string;
}
