import GRDB
public enum _Placeholder {}
