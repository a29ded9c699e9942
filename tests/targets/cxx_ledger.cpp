// cxx_ledger — a C++ program whose namespaced method has two overloads:
// shop::billing::Ledger::Post(long) is called INTS times and
// shop::billing::Ledger::Post(const char*) NOTES times, once SIGUSR1
// arrives (the tracer has attached) or after DELAY_MS.  A spec naming
// shop::billing::Ledger::Post attaches to both.
// Usage: cxx_ledger INTS NOTES DELAY_MS
#include "start_signal.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace shop {
namespace billing {

class Ledger {
public:
	__attribute__((noinline)) long Post(long amount);
	__attribute__((noinline)) long Post(const char *note);

private:
	volatile long total_ = 0;
};

long Ledger::Post(long amount)
{
	total_ = total_ + amount;
	return total_;
}

long Ledger::Post(const char *note)
{
	total_ = total_ + (long)std::strlen(note);
	return total_;
}

}  // namespace billing
}  // namespace shop

int main(int argc, char **argv)
{
	if (argc != 4) {
		std::fprintf(stderr, "usage: cxx_ledger INTS NOTES DELAY_MS\n");
		return 2;
	}
	long ints = std::atol(argv[1]), notes = std::atol(argv[2]);
	// Starts on SIGUSR1 (sent once the tracer has attached) or after
	// DELAY_MS, whichever comes first.
	wait_for_start(std::atol(argv[3]));
	shop::billing::Ledger ledger;
	for (long i = 0; i < ints; i++)
		ledger.Post(i);
	for (long i = 0; i < notes; i++)
		ledger.Post("note");
	std::this_thread::sleep_for(std::chrono::milliseconds(100));
	return 0;
}
