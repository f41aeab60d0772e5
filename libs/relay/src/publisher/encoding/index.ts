/**
 * The relay's own Produce request encoder, behind one door: `RecordEncoderChoice` picks it or
 * kafkajs' encoder per publisher and falls back safely. Nothing else here is used outside.
 */
export { RecordEncoderChoice, type KafkaRecordEncoder } from './record-encoder.choice';
