// What the wrapper's two shapes (one URL piped, several URLs fanned out) share.
import { ErrorCode, type JSONRPCErrorResponse, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export interface Bridge {
  close(): Promise<void>;
}

export interface BridgeEvents {
  /** A diagnostic line for stderr; stdout carries JSON-RPC only. */
  log(line: string): void;
  /** No upstream is left to forward to: the wrapper should end. */
  ended(reason: string): void;
}

export function errorResponse(id: RequestId, message: string, code: number = ErrorCode.InternalError): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}
