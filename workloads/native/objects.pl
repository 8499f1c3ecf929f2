#!/usr/bin/perl
# A Perl program that allocates millions of short- and long-lived objects, as the Heap
# Layers paper's perl benchmark did (a script over a word list): words built from a seeded
# generator, counted in a hash, kept in nested arrays and hashes of records, sorted, joined
# and split, with most of it dropped each round. `perl objects.pl ROUNDS` prints one
# checksum line a round and the final counts; the output depends only on ROUNDS.
use strict;
use warnings;

my $rounds = shift // 8;
die "usage: perl objects.pl [ROUNDS]\n" unless $rounds =~ /^[1-9][0-9]*$/;

my $seed = 42;
sub next_random {  # a 31-bit linear congruential generator: the same words on every run
    $seed = ($seed * 1103515245 + 12345) % 2147483648;
    return $seed;
}

my @letters = ('a' .. 'z');
sub word {
    my $length = 2 + next_random() % 9;
    return join '', map { $letters[next_random() % 26] } 1 .. $length;
}

my %survivors;  # the long-lived part: grows a little each round
for my $round (1 .. $rounds) {
    my %count;
    my @records;
    for my $i (1 .. 60_000) {
        my $w = word();
        $count{$w}++;
        push @records, { word => $w, index => $i, tags => [ map { word() } 1 .. 2 ] };
    }
    my @sorted = sort { $count{$b} <=> $count{$a} || $a cmp $b } keys %count;
    my $line = join ' ', @sorted[0 .. 99];
    my @pieces = split / /, $line;
    my $sum = 0;
    $sum += length($_->{word}) + @{ $_->{tags} } for @records;
    $survivors{"$round:$_"} = [ @{ $records[$_ * 600]{tags} } ] for 0 .. 99;
    printf "round %d: %d words, %d distinct, top %s, checksum %d\n",
        $round, scalar @records, scalar @sorted, $pieces[0], $sum;
}
printf "survivors: %d\n", scalar keys %survivors;
