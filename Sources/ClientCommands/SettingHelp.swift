import ArgumentParser
import GuardSettings

extension ArgumentHelp {
    /// The help of the flag of the config file's `key`: the setting's one description (`Setting.help`),
    /// which volume-guard(5) shows for the key too, with its backquotes left out (the manual sets what
    /// they mark in bold; a terminal shows it plain).
    public static func setting(_ key: String, valueName: String? = nil) -> ArgumentHelp {
        let setting = Options.setting(key)
        var text = setting.help.filter { $0 != "`" }
        if case .list = setting.kind { text += " Repeat the flag for more." }
        return ArgumentHelp(text, valueName: valueName)
    }
}
