import SongboxLibrary
import SongboxMessages
import Synchronization

/// The words of the web app's pages, in English as its scripts write them (`t("Queue")`): each
/// is a message of the catalogs, so the pages speak the CLI's languages (po/he.po), whatever
/// language the daemon itself runs in. A page asks for its language's (`/api/messages?lang=he`).
enum WebText {
    static let messages: [Message] = [
        Message("Now playing"), Message("Queue"), Message("Library"), Message("Playlists"), Message("Plugins"),
        Message("Play"), Message("Pause"), Message("Next"), Message("Previous"), Message("Stop"),
        Message("Volume"), Message("Position"), Message("Repeat"), Message("Random"), Message("Single"), Message("Consume"),
        Message("Nothing is playing"), Message("The queue is empty"), Message("Clear the queue"), Message("Save as playlist"),
        Message("Playlist name"), Message("Save"), Message("Remove"), Message("Move up"), Message("Move down"),
        Message("Search"), Message("artist:Name year:1960..1970 sort:-plays"), Message("Add to the queue"), Message("No results"),
        Message("Load"), Message("No saved playlists"), Message("Enable"), Message("Disable"), Message("Reload"),
        Message("Errors"), Message("Log in"), Message("Password"), Message("Wrong password"),
        Message("Too many attempts: wait a little"), Message("Offline: reconnecting"), Message("Done"),
        // Alarms
        Message("Alarms"), Message("Alarm"), Message("Snooze"), Message("Dismiss"), Message("Snoozed"), Message("No alarms"),
        Message("New alarm"), Message("Name"), Message("Time"), Message("One date only"), Message("Date"), Message("Days"),
        Message("Mon"), Message("Tue"), Message("Wed"), Message("Thu"), Message("Fri"), Message("Sat"), Message("Sun"),
        Message("Plays"), Message("the whole library, shuffled"), Message("query"), Message("playlist"), Message("mood"),
        Message("What plays"), Message("Start volume"), Message("Fade (minutes)"), Message("Curve"), Message("linear"), Message("log"),
        Message("No fade: the volume at once"), Message("Snooze (minutes)"), Message("Stops after (minutes)"), Message("Cancel"),
        Message("Edit"), Message("Enabled"), Message("next"),
        // Stats; why a track ended (the history's reasons)
        Message("Stats"), Message("Most played"), Message("This week"), Message("This month"), Message("All time"),
        Message("Nothing played yet"), Message("Plays a day"), Message("Plays in 30 days"), Message("Recently played"),
        Message("played"), Message("ended"), Message("finished"), Message("skipped"), Message("stopped"), Message("error"), Message("replaced"),
        // Moods
        Message("Moods"), Message("From the first to the second"), Message("Minutes"), Message("Language"), Message("Any"),
        Message("Hebrew"), Message("Latin letters"), Message("Other"), Message("Not played within"), Message("a day"), Message("a week"),
        Message("a month"), Message("Preview"), Message("Pick a mood"), Message("No track fits the mood"),
        // The queue's handle, the library's browsing, the sleep timer
        Message("Move"), Message("Artists"), Message("Folders"), Message("Sleep timer"), Message("Choose"), Message("Off"),
        Message("At the end of the song"), Message("At the end of the queue"), Message("New smart playlist"), Message("Query"),
        // Units beside a number, an alarm's days, a plugin's state (`plugins`' status)
        Message("min"), Message("sec"), Message("Every day"),
        Message("starting"), Message("running"), Message("restarting"), Message("disabled"), Message("stopped"),
        // The sleep timer's state
        Message("Stops in"), Message("Stops after this song"), Message("Stops at the end of the queue"),
        // An alarm's test
        Message("Test"), Message("What happened"), Message("Close"), Message("Running on the fast clock…"),
        Message("On a copy of the library: nothing is played or counted."),
        // The timeline's words (the alarm plugin's kinds and phases)
        Message("alarm"), Message("volume"), Message("track"), Message("check"), Message("say"), Message("to"), Message("the alarm tone"),
        Message("sounding"), Message("snoozed"), Message("dismissed"), Message("timeout"), Message("failed"), Message("fallback"),
        Message("missed"), Message("scheduled"), Message("audio flows"),
        // Autoplay's settings
        Message("Autoplay's settings"), Message("default"), Message("from the config"), Message("set here"),
        Message("Tracks ahead"), Message("Played tracks kept"), Message("Plays before a track again"),
        Message("Tracks before an artist again"), Message("Tracks before an album again"), Message("Never rated this or lower"),
        Message("A liked track's weight"), Message("A skip's weight"), Message("From a playlist"), Message("From a query"), Message("Similar tracks"),
    ]

    /// Right-to-left languages among those songbox may be translated into.
    static let rightToLeft: Set<String> = ["he", "ar", "fa", "ur", "yi"]

    private static let cache = Mutex<[String: String]>([:])

    /// `{"language", "direction", "messages": {English: translated}}` for `language` (its first
    /// two letters: `he-IL` is `he`); English (no translations) when there is no catalog.
    static func json(language: String) -> String {
        let code = String(language.lowercased().prefix { $0.isASCII && $0.isLetter }.prefix(3))
        if let known = cache.withLock({ $0[code] }) { return known }
        let catalog = Catalog.translations(language: code)
        let translated = messages.compactMap { message in catalog[message.key].map { (message.key, $0) } }
        let chosen = translated.isEmpty ? "en" : code
        let text = WebAnswer.object(fields: [
            ("language", JSONText.quoted(chosen)),
            ("direction", JSONText.quoted(rightToLeft.contains(chosen) ? "rtl" : "ltr")),
            ("messages", WebAnswer.object(fields: translated.map { ($0.0, JSONText.quoted($0.1)) })),
        ])
        // A few languages at most: the codes are letters, three at most.
        cache.withLock { $0[code] = text }
        return text
    }
}
