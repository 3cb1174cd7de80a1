import java.net.URI;
import java.security.URIParameter;
import java.util.Map;
import java.util.TreeMap;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;

// Prints what the JDK's JAAS configuration parser reads from each file
// given: per section asked for, its login modules, control flags and
// options, one per line, escaped as JaasConfigDump.java escapes them; "error" when the file does not parse.
// Arguments: section names joined by commas, then the files.
public class JAASDump {
  public static void main(String[] args) throws Exception {
    String[] sections = args[0].split(",");
    for (int i = 1; i < args.length; i++) {
      System.out.println("file " + (i - 1));
      Configuration c;
      try {
        c = Configuration.getInstance("JavaLoginConfig", new URIParameter(new URI("file://" + args[i])));
      } catch (Exception e) {
        System.out.println("error");
        continue;
      }
      for (String s : sections) {
        AppConfigurationEntry[] es = c.getAppConfigurationEntry(s);
        if (es == null) continue;
        for (AppConfigurationEntry e : es) {
          String flag = e.getControlFlag().toString();
          flag = flag.substring(flag.indexOf(':') + 1).trim();
          StringBuilder b = new StringBuilder(s + " " + e.getLoginModuleName() + " " + flag);
          for (Map.Entry<String, ?> o : new TreeMap<String, Object>(e.getOptions()).entrySet()) {
            b.append(" ").append(escape(o.getKey())).append("=").append(escape(String.valueOf(o.getValue())));
          }
          System.out.println(b);
        }
      }
    }
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
