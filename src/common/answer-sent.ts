import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/** Calls `callback` once, when the request's answer has been sent or its connection closed before that. */
export type WhenSent = (callback: () => void) => void;

/**
 * The request's `WhenSent`: what holds memory for an answer (`ListAnswers`) gives it back then, and not
 * when the handler returned, since a client that reads slowly keeps the answer's bytes in this process
 * until then. A function and not a promise: Nest awaits a promise a parameter decorator gives before
 * it calls the handler.
 */
export const AnswerSent = createParamDecorator((_data: unknown, context: ExecutionContext): WhenSent => {
  const response = context.switchToHttp().getResponse<FastifyReply>().raw;
  return (callback) => {
    if (response.closed) callback();
    else response.once('close', callback);
  };
});
