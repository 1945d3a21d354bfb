export { type FoldTaskOptions, foldTaskMessages } from './fold-task-messages.js';
