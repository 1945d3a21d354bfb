const SOCKET_ERROR = /^E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|NETUNREACH|AI_AGAIN)$/u;

/**
 * Whether an error's `code` is a socket error that means the server is unreachable or the
 * connection was cut (refused, reset, timed out, unreachable, DNS not ready), as opposed to a
 * statement or command the server rejected.
 */
export function isSocketErrorCode(code: unknown): boolean {
  return typeof code === 'string' && SOCKET_ERROR.test(code);
}
