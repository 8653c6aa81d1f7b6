package dev.kubeproxy.config;

import dev.kubeproxy.gotext.GoDuration;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;
import java.io.IOException;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The Go value types of the v1alpha1 schema that Java has no exact twin for, as Jackson
 * (de)serializers named on the model's fields: {@code time.Duration} (metav1.Duration: a string
 * such as "30s"; component-base's flushFrequency also takes integer nanoseconds), {@code uint32},
 * {@code float32} and resource.Quantity text.
 */
final class GoValues {
  private GoValues() {}

  /**
   * A value the Go decoder refuses. {@code goType} is set for a wrong JSON type ("cannot unmarshal
   * string into ... of type int32"); otherwise the message is the Go parser's own.
   */
  static final class Mismatch extends JsonMappingException {
    final String goType;

    Mismatch(JsonParser p, String goType, String message) {
      super(p, message);
      this.goType = goType;
    }
  }

  static final String DURATION_TYPE = "duration (a string such as \"30s\")";

  /** metav1.Duration: Go's time.ParseDuration text. */
  static final class DurationDeserializer extends StdScalarDeserializer<Duration> {
    DurationDeserializer() {
      super(Duration.class);
    }

    @Override
    public Duration deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() != JsonToken.VALUE_STRING) {
        throw new Mismatch(p, DURATION_TYPE, "not a string");
      }
      return parse(p);
    }

    static Duration parse(JsonParser p) throws IOException {
      try {
        return GoDuration.parse(p.getText());
      } catch (IllegalArgumentException e) {
        throw new Mismatch(p, null, e.getMessage());
      }
    }
  }

  /** component-base's logging flushFrequency: a duration string or integer nanoseconds. */
  static final class DurationOrNanosDeserializer extends StdScalarDeserializer<Duration> {
    DurationOrNanosDeserializer() {
      super(Duration.class);
    }

    @Override
    public Duration deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
        return Duration.ofNanos(p.getLongValue());
      }
      if (p.currentToken() != JsonToken.VALUE_STRING) {
        throw new Mismatch(p, DURATION_TYPE, "not a string");
      }
      return DurationDeserializer.parse(p);
    }
  }

  /** Go's Duration.String(). */
  static final class DurationSerializer extends StdScalarSerializer<Duration> {
    DurationSerializer() {
      super(Duration.class);
    }

    @Override
    public void serialize(Duration value, JsonGenerator gen, SerializerProvider provider) throws IOException {
      gen.writeString(GoDuration.format(value));
    }
  }

  /** uint32: a whole number from 0 to 2^32-1 (kept in an int: verbosity never comes near 2^31). */
  static final class UInt32Deserializer extends StdScalarDeserializer<Integer> {
    UInt32Deserializer() {
      super(Integer.class);
    }

    @Override
    public Integer deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
          || p.getLongValue() < 0 || p.getLongValue() > Integer.MAX_VALUE) {
        throw new Mismatch(p, "uint32", "not a uint32");
      }
      return p.getIntValue();
    }
  }

  /** float32 as Go's encoding/json prints it: whole numbers without a fraction ({@code qps: 5}). */
  static final class Float32Serializer extends StdScalarSerializer<Float> {
    Float32Serializer() {
      super(Float.class);
    }

    @Override
    public void serialize(Float value, JsonGenerator gen, SerializerProvider provider) throws IOException {
      Object n = float32Number(value);
      if (n instanceof Long l) {
        gen.writeNumber(l);
      } else {
        gen.writeNumber((Double) n);
      }
    }
  }

  /** The number Go prints for a float32: a long when whole, else the float's shortest decimal. */
  static Object float32Number(float f) {
    if (f == Math.rint(f) && !Float.isInfinite(f) && Math.abs(f) < 1e15) {
      return (long) f;
    }
    return Double.parseDouble(Float.toString(f));
  }

  private static final Pattern QUANTITY =
      Pattern.compile("^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+|[KMGTPE]i|[numkMGTPE])?$");

  /** resource.Quantity text (logging infoBufferSize): a string or a bare number. */
  static final class QuantityDeserializer extends StdScalarDeserializer<String> {
    QuantityDeserializer() {
      super(String.class);
    }

    @Override
    public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      JsonToken t = p.currentToken();
      if (t != JsonToken.VALUE_STRING && t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
        throw new Mismatch(p, "string", "not a quantity");
      }
      String text = p.getText();
      if (!QUANTITY.matcher(text).matches()) {
        throw new Mismatch(p, null, "quantities must match the regular expression "
            + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
      }
      return text;
    }
  }
}
