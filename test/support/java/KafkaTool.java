import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A plain kafka-clients producer and consumer, for interoperability tests (run as a
 * single-file source: java -cp '.cache/kafka/libs/*' KafkaTool.java MODE --key value ...).
 *
 * <p>produce: reads JSON lines {"key","value","headers":{name:value},"partition"} from stdin
 * (strings or null; partition optional) and sends them as one batch per partition, with
 * --compression none|gzip|snappy|lz4|zstd (and --transactional-id ID --end commit|abort to
 * send them in one transaction). Prints {"sent":N}.
 *
 * <p>consume: prints each record of --topic as a JSON line {"partition","offset","key",
 * "headers","value"} (read_committed) until --count records arrived or --timeout-ms passed
 * without a record.
 *
 * <p>group-offsets: prints, for each partition of --topic, {"partition","committed","logEnd"}:
 * the offset --group committed (-1 when none) and the log end offset, read with the Admin calls
 * kafka-consumer-groups.sh --describe makes.
 */
public final class KafkaTool {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    for (int i = 1; i + 1 < args.length; i += 2) opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    String mode = args.length > 0 ? args[0] : "";
    switch (mode) {
      case "produce" -> produce(opts);
      case "consume" -> consume(opts);
      case "group-offsets" -> groupOffsets(opts);
      default -> throw new IllegalArgumentException("usage: KafkaTool produce|consume|group-offsets --brokers B --topic T ...");
    }
  }

  private static String required(Map<String, String> opts, String name) {
    String value = opts.get(name);
    if (value == null) throw new IllegalArgumentException("missing --" + name);
    return value;
  }

  private static byte[] bytes(JsonNode node) {
    return node == null || node.isNull() ? null : node.asText().getBytes(StandardCharsets.UTF_8);
  }

  private static void produce(Map<String, String> opts) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, required(opts, "brokers"));
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, opts.getOrDefault("compression", "none"));
    props.put(ProducerConfig.LINGER_MS_CONFIG, "1000");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, "1048576");
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
    String txId = opts.get("transactional-id");
    if (txId != null) props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txId);
    String topic = required(opts, "topic");
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) continue;
      JsonNode node = JSON.readTree(line);
      JsonNode partition = node.get("partition");
      var record = new ProducerRecord<>(topic, partition == null ? null : partition.asInt(),
          bytes(node.get("key")), bytes(node.get("value")));
      JsonNode headers = node.get("headers");
      if (headers != null) {
        for (Iterator<Map.Entry<String, JsonNode>> it = headers.properties().iterator(); it.hasNext(); ) {
          var header = it.next();
          record.headers().add(header.getKey(), bytes(header.getValue()));
        }
      }
      records.add(record);
    }
    try (var producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
      if (txId != null) {
        producer.initTransactions();
        producer.beginTransaction();
      }
      var acks = new ArrayList<java.util.concurrent.Future<?>>();
      for (var record : records) acks.add(producer.send(record));
      producer.flush();
      for (var ack : acks) ack.get();
      if (txId != null) {
        if ("abort".equals(required(opts, "end"))) producer.abortTransaction();
        else producer.commitTransaction();
      }
    }
    System.out.println("{\"sent\":" + records.size() + "}");
  }

  private static void consume(Map<String, String> opts) throws Exception {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, required(opts, "brokers"));
    props.put(ConsumerConfig.GROUP_ID_CONFIG, opts.getOrDefault("group", "kafka-tool-" + System.nanoTime()));
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    int count = Integer.parseInt(opts.getOrDefault("count", "2147483647"));
    long idleMs = Long.parseLong(opts.getOrDefault("timeout-ms", "30000"));
    int seen = 0;
    try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(required(opts, "topic")));
      long idleSince = System.currentTimeMillis();
      while (seen < count && System.currentTimeMillis() - idleSince < idleMs) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          System.out.println(JSON.writeValueAsString(toJson(record)));
          idleSince = System.currentTimeMillis();
          seen++;
        }
      }
    }
    System.out.flush();
  }

  private static void groupOffsets(Map<String, String> opts) throws Exception {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, required(opts, "brokers"));
    String topic = required(opts, "topic");
    try (Admin admin = Admin.create(props)) {
      var committed = admin.listConsumerGroupOffsets(required(opts, "group")).partitionsToOffsetAndMetadata().get();
      var partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions();
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (var p : partitions) latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
      var ends = admin.listOffsets(latest).all().get();
      for (var p : partitions) {
        var tp = new TopicPartition(topic, p.partition());
        var offset = committed.get(tp);
        ObjectNode out = JSON.createObjectNode();
        out.put("partition", p.partition());
        out.put("committed", offset == null ? -1 : offset.offset());
        out.put("logEnd", ends.get(tp).offset());
        System.out.println(JSON.writeValueAsString(out));
      }
    }
  }

  private static ObjectNode toJson(ConsumerRecord<byte[], byte[]> record) {
    ObjectNode out = JSON.createObjectNode();
    out.put("partition", record.partition());
    out.put("offset", record.offset());
    out.put("key", text(record.key()));
    ObjectNode headers = out.putObject("headers");
    for (Header header : record.headers()) headers.put(header.key(), text(header.value()));
    out.put("value", text(record.value()));
    return out;
  }

  private static String text(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }
}
