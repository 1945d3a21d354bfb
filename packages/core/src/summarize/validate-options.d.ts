import type { TokenCounter } from '../contracts/index.js';
export declare function requireCounter(counter: TokenCounter | undefined): void;
export declare function requirePositiveInteger(option: string, value: number): void;
//# sourceMappingURL=validate-options.d.ts.map
