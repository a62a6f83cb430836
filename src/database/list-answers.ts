import { Inject, Injectable } from '@nestjs/common';
import type { WhenSent } from '../common/answer-sent.js';
import { ByteBudget, type Reservation } from '../common/byte-budget.js';
import { SemaphoreRefusal } from '../common/semaphore.js';
import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { AnswerTooLarge } from './bounded-list.js';
import { PROJECT_WAIT_MS, projectBusy } from './database.js';

/** The bound a list answer is first built under: most pages are smaller, and reserve no more. */
const FIRST_BOUND_BYTES = 1_048_576;

/**
 * The memory of list answers (resource query and merge, search, messages, versions), per project: the
 * answers one project builds and sends at once hold at most PROJECT_MAX_RESPONSE_BYTES together.
 *
 * An answer reserves its bound before its statement runs: first min(1 MiB, HTTP_MAX_RESPONSE_BYTES).
 * When it is larger than that (`AnswerTooLarge`), it gives those bytes back, reserves
 * HTTP_MAX_RESPONSE_BYTES and is built again: a page above 1 MiB costs a second statement, the others
 * none. Once built, it keeps the bytes it takes until the answer has been sent (`whenSent`, given by
 * `AnswerSent`): a client that reads slowly holds its answer's share. A reservation waits
 * PROJECT_WAIT_MS at most for the project's earlier answers to give bytes back, then the request
 * answers 503 with Retry-After. The cost on a small page: about 4 µs of CPU (a reservation, and the
 * answer's byte length), against 0.5–1 ms for the whole request.
 */
@Injectable()
export class ListAnswers {
  private readonly budget: ByteBudget;
  private readonly maxBytes: number;
  private readonly firstBound: number;

  constructor(@Inject(httpConfig.KEY) http: HttpConfig) {
    this.budget = new ByteBudget(http.projectMaxResponseBytes);
    this.maxBytes = http.maxResponseBytes;
    this.firstBound = Math.min(FIRST_BOUND_BYTES, http.maxResponseBytes);
  }

  /**
   * The answer `build(maxBytes)` makes within the project's share: JSON text, or an object with it as
   * `json`. `build` throws `AnswerTooLarge` (`tooLarge(maxBytes)`) when the answer would pass `maxBytes`.
   */
  async build<T extends string | { json: string }>(projectKey: string, whenSent: WhenSent, build: (maxBytes: number) => Promise<T>): Promise<T> {
    let reservation = await this.reserve(projectKey, this.firstBound);
    try {
      let answer: T;
      try {
        answer = await build(this.firstBound);
      } catch (error) {
        if (!(error instanceof AnswerTooLarge) || this.firstBound === this.maxBytes) throw error;
        reservation.release();
        reservation = await this.reserve(projectKey, this.maxBytes);
        answer = await build(this.maxBytes);
      }
      reservation.shrink(Buffer.byteLength(typeof answer === 'string' ? answer : answer.json));
      const held = reservation;
      whenSent(() => held.release());
      return answer;
    } catch (error) {
      reservation.release();
      throw error;
    }
  }

  private async reserve(projectKey: string, bytes: number): Promise<Reservation> {
    try {
      return await this.budget.acquire(projectKey, bytes, PROJECT_WAIT_MS);
    } catch (error) {
      if (error instanceof SemaphoreRefusal) throw projectBusy();
      throw error;
    }
  }
}
