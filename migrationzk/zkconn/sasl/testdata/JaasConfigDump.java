import java.io.IOException;
import java.io.StreamTokenizer;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

// Prints, for each file given, how the value of Kafka's sasl.jaas.config
// it holds reads: its entries, one per line (login module, control flag,
// options sorted by name and escaped), or "error". The value is split
// with the JDK's StreamTokenizer, set up as Kafka's clients set it up
// (// and /* */ comments; '-', '_' and '$' as word characters), and read
// as entries of: a login module, a control flag, name=value options, ';'.
public class JaasConfigDump {
  public static void main(String[] args) throws Exception {
    for (int i = 0; i < args.length; i++) {
      System.out.println("file " + i);
      String value = new String(Files.readAllBytes(Paths.get(args[i])), StandardCharsets.UTF_8);
      StringBuilder out = new StringBuilder();
      try {
        dump(value, out);
        System.out.print(out);
      } catch (IllegalArgumentException e) {
        System.out.println("error");
      }
    }
  }

  static void dump(String value, StringBuilder out) throws IOException {
    StreamTokenizer st = new StreamTokenizer(new StringReader(value));
    st.slashSlashComments(true);
    st.slashStarComments(true);
    st.wordChars('-', '-');
    st.wordChars('_', '_');
    st.wordChars('$', '$');
    int entries = 0;
    while (st.nextToken() != StreamTokenizer.TT_EOF) {
      entry(st, out);
      entries++;
    }
    if (entries == 0) throw new IllegalArgumentException("no entry");
  }

  static void entry(StreamTokenizer st, StringBuilder out) throws IOException {
    String module = st.sval;
    if (module == null || module.isEmpty()) throw new IllegalArgumentException("module");
    if (st.nextToken() == StreamTokenizer.TT_EOF || st.sval == null) throw new IllegalArgumentException("flag");
    String flag = st.sval.toUpperCase(Locale.ROOT);
    if (!flag.equals("REQUIRED") && !flag.equals("REQUISITE") && !flag.equals("SUFFICIENT") && !flag.equals("OPTIONAL"))
      throw new IllegalArgumentException("flag");
    Map<String, String> options = new TreeMap<>();
    while (st.nextToken() != StreamTokenizer.TT_EOF && st.ttype != ';') {
      String key = st.sval;
      if (st.nextToken() != '=' || st.nextToken() == StreamTokenizer.TT_EOF || st.sval == null)
        throw new IllegalArgumentException("value");
      if (key != null) options.put(key, st.sval);
    }
    if (st.ttype != ';') throw new IllegalArgumentException("end");
    out.append(module).append(' ').append(flag.toLowerCase(Locale.ROOT));
    for (Map.Entry<String, String> o : options.entrySet())
      out.append(' ').append(escape(o.getKey())).append('=').append(escape(o.getValue()));
    out.append('\n');
  }

  static String escape(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c == '\\') b.append("\\\\");
      else if (c < 0x21 || c > 0x7e) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.toString();
  }
}
