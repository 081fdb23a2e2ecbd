/**
 * Sends one text message. Resolves when the gateway accepted it; rejects (any error) when it
 * refused, timed out or could not be reached. The domain turns a rejection into `SMS_FAILED`.
 */
export interface SmsSender {
  send(to: string, text: string): Promise<void>;
}
