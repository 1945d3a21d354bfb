export { runMcpCommand } from './mcp-command.js';
