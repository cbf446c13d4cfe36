// registry.cpp -- a small plugin registry with type-erased handlers.
//
// Part of the "scribe" log processing toolkit. Each plugin registers a factory under a name;
// the pipeline looks factories up by name, instantiates them and wires their outputs together.
// The code is self-contained on purpose (no standard library): it is built for an embedded
// target where only a freestanding toolchain is available.

typedef unsigned long size_type;
typedef unsigned int hash_type;

namespace scribe {

namespace detail {

template <typename T> struct remove_reference { typedef T type; };
template <typename T> struct remove_reference<T&> { typedef T type; };
template <typename T> struct remove_reference<T&&> { typedef T type; };

template <typename T>
typename remove_reference<T>::type&& move(T&& value) noexcept {
    return static_cast<typename remove_reference<T>::type&&>(value);
}

template <typename T> struct is_const { static constexpr bool value = false; };
template <typename T> struct is_const<const T> { static constexpr bool value = true; };

// FNV-1a over a NUL-terminated string.
inline hash_type hash_string(const char* text) {
    hash_type hash = 2166136261u;
    while (*text) {
        hash ^= static_cast<unsigned char>(*text++);
        hash *= 16777619u;
    }
    return hash;
}

inline bool equal_strings(const char* a, const char* b) {
    while (*a && *a == *b) {
        ++a;
        ++b;
    }
    return *a == *b;
}

} // namespace detail

/// A growable array with a fixed inline capacity (no heap on the target).
template <typename T, size_type Capacity>
class StaticVector {
public:
    StaticVector() : size_(0) {}

    bool push_back(const T& value) {
        if (size_ == Capacity) {
            return false;
        }
        items_[size_++] = value;
        return true;
    }

    void pop_back() {
        if (size_ > 0) {
            --size_;
        }
    }

    size_type size() const { return size_; }
    bool empty() const { return size_ == 0; }
    size_type capacity() const { return Capacity; }

    T& operator[](size_type index) { return items_[index]; }
    const T& operator[](size_type index) const { return items_[index]; }

    T* begin() { return items_; }
    T* end() { return items_ + size_; }
    const T* begin() const { return items_; }
    const T* end() const { return items_ + size_; }

private:
    T items_[Capacity];
    size_type size_;
};

/// An optional value without exceptions.
template <typename T>
class Optional {
public:
    Optional() : engaged_(false), value_() {}
    Optional(const T& value) : engaged_(true), value_(value) {}

    explicit operator bool() const { return engaged_; }
    const T& value() const { return value_; }
    T& value() { return value_; }
    const T& value_or(const T& fallback) const { return engaged_ ? value_ : fallback; }

private:
    bool engaged_;
    T value_;
};

/// A record flowing through the pipeline.
struct Record {
    const char* source;
    const char* message;
    int severity;
    unsigned long timestamp;
};

/// The interface every stage implements.
class Handler {
public:
    virtual ~Handler() {}
    virtual const char* name() const = 0;
    virtual bool accept(const Record& record) = 0;
    virtual void flush() {}
};

typedef Handler* (*Factory)(const char* options);

/// Maps plugin names to factories (open addressing, linear probing).
template <size_type Buckets>
class Registry {
public:
    struct Entry {
        const char* name;
        Factory factory;
        hash_type hash;
        int uses;
    };

    Registry() : count_(0) {
        for (size_type i = 0; i < Buckets; ++i) {
            entries_[i].name = nullptr;
            entries_[i].factory = nullptr;
            entries_[i].hash = 0;
            entries_[i].uses = 0;
        }
    }

    bool add(const char* name, Factory factory) {
        if (count_ == Buckets) {
            return false;
        }
        const hash_type hash = detail::hash_string(name);
        size_type slot = hash % Buckets;
        while (entries_[slot].name != nullptr) {
            if (entries_[slot].hash == hash && detail::equal_strings(entries_[slot].name, name)) {
                return false; // already registered
            }
            slot = (slot + 1) % Buckets;
        }
        entries_[slot].name = name;
        entries_[slot].factory = factory;
        entries_[slot].hash = hash;
        ++count_;
        return true;
    }

    // Counts the lookup so that `scribe stats` can report unused plugins.
    Entry* find(const char* name) {
        const hash_type hash = detail::hash_string(name);
        size_type slot = hash % Buckets;
        for (size_type probes = 0; probes < Buckets; ++probes) {
            Entry& entry = entries_[slot];
            if (entry.name == nullptr) {
                return nullptr;
            }
            if (entry.hash == hash && detail::equal_strings(entry.name, name)) {
                ++entry.uses;
                return &entry;
            }
            slot = (slot + 1) % Buckets;
        }
        return nullptr;
    }

    size_type size() const { return count_; }

    template <typename Visitor>
    void for_each(Visitor&& visit) const {
        for (size_type i = 0; i < Buckets; ++i) {
            if (entries_[i].name != nullptr) {
                visit(entries_[i]);
            }
        }
    }

private:
    Entry entries_[Buckets];
    size_type count_;
};

/// Drops records below a severity threshold.
class SeverityFilter : public Handler {
public:
    explicit SeverityFilter(int threshold) : threshold_(threshold), dropped_(0) {}
    const char* name() const override { return "severity"; }
    bool accept(const Record& record) override {
        if (record.severity < threshold_) {
            ++dropped_;
            return false;
        }
        return true;
    }
    unsigned long dropped() const { return dropped_; }

private:
    int threshold_;
    unsigned long dropped_;
};

/// Collapses runs of identical messages from the same source.
class Deduplicator : public Handler {
public:
    Deduplicator() : last_source_(nullptr), last_message_(nullptr), repeats_(0) {}
    const char* name() const override { return "dedup"; }
    bool accept(const Record& record) override {
        if (last_source_ && last_message_ && detail::equal_strings(last_source_, record.source) &&
            detail::equal_strings(last_message_, record.message)) {
            ++repeats_;
            return false;
        }
        last_source_ = record.source;
        last_message_ = record.message;
        repeats_ = 0;
        return true;
    }
    void flush() override { repeats_ = 0; }

private:
    const char* last_source_;
    const char* last_message_;
    unsigned long repeats_;
};

inline int parse_int(const char* text, int fallback) {
    if (text == nullptr || *text == '\0') {
        return fallback;
    }
    int sign = 1;
    if (*text == '-') {
        sign = -1;
        ++text;
    }
    int value = 0;
    while (*text >= '0' && *text <= '9') {
        value = value * 10 + (*text - '0');
        ++text;
    }
    return sign * value;
}

static Handler* make_severity(const char* options) {
    static SeverityFilter instance(parse_int(options, 2));
    return &instance;
}

static Handler* make_dedup(const char*) {
    static Deduplicator instance;
    return &instance;
}

/// A chain of handlers built from a textual description ("severity:3,dedup").
template <size_type MaxStages, typename RegistryType>
class Pipeline {
public:
    explicit Pipeline(const RegistryType& registry) : registry_(registry) {}

    // Looks up one stage by name and appends it; returns false for an unknown plugin.
    bool append(const char* name, const char* options) {
        auto* entry = registry_.find(name);
        if (entry == nullptr) {
            return false;
        }
        Handler* handler = entry->factory(options);
        return stages_.push_back(handler);
    }

    bool process(const Record& record) {
        for (Handler* stage : stages_) {
            if (!stage->accept(record)) {
                return false;
            }
        }
        return true;
    }

    void flush() {
        for (Handler* stage : stages_) {
            stage->flush();
        }
    }

    size_type depth() const { return stages_.size(); }

private:
    const RegistryType& registry_;
    StaticVector<Handler*, MaxStages> stages_;
};

} // namespace scribe

// Registry with room for 16 plugins; the defaults are registered at start-up.
static scribe::Registry<16> plugins;

static const scribe::Record sample[] = {
    {"kernel", "link up", 3, 1000},
    {"kernel", "link up", 3, 1001},
    {"sshd", "accepted publickey", 2, 1005},
    {"cron", "job started", 1, 1010},
    {"sshd", "session closed", 2, 1042},
};

int run_sample() {
    plugins.add("severity", &scribe::make_severity);
    plugins.add("dedup", &scribe::make_dedup);

    scribe::Pipeline<4, scribe::Registry<16>> pipeline(plugins);
    if (!pipeline.append("severity", "2") || !pipeline.append("dedup", nullptr)) {
        return 1;
    }
    int kept = 0;
    for (const scribe::Record& record : sample) {
        if (pipeline.process(record)) {
            ++kept;
        }
    }
    pipeline.flush();
    return kept == 3 ? 0 : 2;
}

int count_unused() {
    int unused = 0;
    plugins.for_each([&unused](const scribe::Registry<16>::Entry& entry) {
        if (entry.uses == 0) {
            ++unused;
        }
    });
    return unused;
}
